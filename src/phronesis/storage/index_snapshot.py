"""A vector index saved beside the database, so a restart need not rebuild it.

Rebuilding a million-vector HNSW graph from the database takes about twenty minutes here;
reading it back from a snapshot takes seconds. A snapshot is one file per collection and
database (``<data_dir>/index/<collection>-<database fingerprint>.snapshot``): a header
naming the embedding model, the dimension and the change-feed id it is current to, then
each partition's keys and data with their SHA-256. The index that loads it then applies
the feed's entries after that id (``storage.followed_index``, ``admission.run_index``).

A snapshot is never trusted: one that is missing, unreadable, truncated, of another format,
model or dimension, whose checksum does not match, or that is ahead of the database's feed
(the database was recreated) is rejected with the reason, and the index is rebuilt from the
database. After the feed is applied, the index must hold as many vectors as the table has
rows, or it is rebuilt too (see the callers).

Written to a temporary file and renamed over the old one, so a reader (another worker
starting up) sees a whole snapshot or the previous one, never half of one.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import struct
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Final

from phronesis.storage.hnsw_index import HnswVectorIndex
from phronesis.storage.partitioned_index import PartitionedIndex
from phronesis.storage.vector_index import Bytes

__all__ = ["IndexSnapshots", "Loaded", "SnapshotRejected", "caught_up", "database_fingerprint", "log_rejected"]

log = logging.getLogger("phronesis.storage")

MAGIC: Final = b"PHXSNAP1"
FORMAT: Final = 1


class SnapshotRejected(Exception):
    """Why a snapshot was not used (it is logged, and the index is rebuilt)."""

    def __init__(self, reason: str, *, missing: bool = False) -> None:
        super().__init__(reason)
        self.missing = missing
        """Nothing was saved yet (an index below the snapshot size never is): not worth a warning."""


def log_rejected(collection: str, rejected: SnapshotRejected) -> None:
    log.log(
        logging.DEBUG if rejected.missing else logging.WARNING,
        "%s index: snapshot not used, rebuilding from the database: %s",
        collection,
        rejected,
    )


@dataclass(frozen=True, slots=True)
class Loaded:
    watermark: int
    """The change-feed id the snapshot is current to: apply the entries after it."""
    vectors: int
    seconds: float


async def caught_up(
    collection: str,
    loaded: Loaded,
    *,
    follow: Callable[[], Awaitable[None]],
    size: Callable[[], int],
    rows: Callable[[], Awaitable[int]],
) -> bool:
    """After a snapshot is loaded: apply the feed after it, then check the index holds as many
    vectors as the table has rows (read twice: a write may commit between the two reads). False,
    logged, when it does not: the caller rebuilds."""
    await follow()
    expected = await rows()
    if expected != size():
        await follow()
        expected = await rows()
    if expected != size():
        log.warning(
            "%s index: snapshot not used, rebuilding from the database: it holds %d vectors for %d rows",
            collection,
            size(),
            expected,
        )
        return False
    log.info(
        "%s index: %d vectors from the snapshot in %.1f s, then the change feed after entry %d",
        collection,
        loaded.vectors,
        loaded.seconds,
        loaded.watermark,
    )
    return True


def database_fingerprint(identity: str) -> str:
    """Which database a snapshot belongs to (``Database.identity``), without the password in the file name."""
    from sqlalchemy.engine import make_url

    url, _, rest = identity.partition("#")
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        identity = f"sqlite:{Path(parsed.database or '').resolve()}"
    else:
        identity = parsed.set(password=None).render_as_string(hide_password=False) + rest
    return hashlib.sha256(identity.encode()).hexdigest()[:16]


def _read_exact(stream: BinaryIO, size: int) -> bytes:
    data = stream.read(size)
    if len(data) != size:
        raise SnapshotRejected("the file is truncated")
    return data


class _HashedReader:
    """One partition's data, read from the file while it is hashed (faiss reads its graph straight
    from here), never past the partition's end."""

    def __init__(self, stream: BinaryIO, size: int, digest: Any) -> None:
        self._stream = stream
        self._left = size
        self._digest = digest

    def read(self, n: int) -> bytes:
        chunk = self._stream.read(min(n, self._left))
        self._left -= len(chunk)
        self._digest.update(chunk)
        return chunk

    def finish(self) -> None:
        """Hash what the reader left unread (the file is judged whole, read or not)."""
        while self._left > 0:
            chunk = self._stream.read(min(self._left, 1 << 24))
            if not chunk:
                raise SnapshotRejected("the file is truncated")
            self._left -= len(chunk)
            self._digest.update(chunk)

    def hexdigest(self) -> str:
        return str(self._digest.hexdigest())


class IndexSnapshots:
    def __init__(self, directory: Path, fingerprint: str) -> None:
        self._directory = directory
        self._fingerprint = fingerprint

    def path(self, collection: str) -> Path:
        return self._directory / f"{collection}-{self._fingerprint}.snapshot"

    def save(self, collection: str, index: PartitionedIndex, *, watermark: int, embedding_model: str) -> Path:
        """Write ``index`` as current to feed id ``watermark``; replaces the previous snapshot whole."""
        started = time.perf_counter()
        blobs: list[tuple[bytes, Bytes]] = []
        partitions: list[dict[str, Any]] = []
        for tenant, domain, part in index.partitions():
            slots, data = part.dump()
            keys = "\n".join("" if key is None else key for key in slots).encode()
            digest = hashlib.sha256(keys)
            digest.update(data.data)
            partitions.append(
                {
                    "tenant": tenant,
                    "domain": domain,
                    "hnsw": isinstance(part, HnswVectorIndex),
                    "slots": len(slots),
                    "keys_bytes": len(keys),
                    "data_bytes": data.nbytes,
                    "sha256": digest.hexdigest(),
                }
            )
            blobs.append((keys, data))
        header = json.dumps(
            {
                "format": FORMAT,
                "collection": collection,
                "embedding_model": embedding_model,
                "dimension": index.dimension,
                "watermark": watermark,
                "partitions": partitions,
            }
        ).encode()
        target = self.path(collection)
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(MAGIC + struct.pack("<Q", len(header)) + header)
                for keys, data in blobs:
                    out.write(keys)
                    out.write(data.data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        log.info(
            "%s index: snapshot of %d vectors written to %s in %.1f s",
            collection,
            len(index),
            target,
            time.perf_counter() - started,
        )
        return target

    def load(self, collection: str, index: PartitionedIndex, *, embedding_model: str, feed_last_id: int) -> Loaded:
        """Fill the empty ``index`` from the snapshot; raises ``SnapshotRejected`` saying why not."""
        started = time.perf_counter()
        path = self.path(collection)
        try:
            stream = path.open("rb")
        except FileNotFoundError:
            raise SnapshotRejected("there is no snapshot", missing=True) from None
        except OSError as exc:
            raise SnapshotRejected(f"it cannot be read ({exc.strerror})") from None
        with stream:
            if _read_exact(stream, len(MAGIC)) != MAGIC:
                raise SnapshotRejected("it is not a phronesis index snapshot")
            (size,) = struct.unpack("<Q", _read_exact(stream, 8))
            try:
                header = json.loads(_read_exact(stream, size))
            except ValueError:
                raise SnapshotRejected("its header is corrupt") from None
            self._check(header, collection, index.dimension, embedding_model, feed_last_id)
            for part in header["partitions"]:
                keys = _read_exact(stream, part["keys_bytes"])
                try:
                    slots: list[str | None] = [key or None for key in keys.decode().split("\n")] if keys else []
                except UnicodeDecodeError:
                    raise SnapshotRejected("a checksum does not match (the file is corrupt)") from None
                if len(slots) != part["slots"]:
                    raise SnapshotRejected("a partition's keys do not match its header")
                data = _HashedReader(stream, part["data_bytes"], hashlib.sha256(keys))
                try:
                    index.restore_partition(part["tenant"], part["domain"], part["hnsw"], slots, data.read)
                except (ValueError, RuntimeError) as exc:
                    # a corrupt graph may fail to parse before its checksum can be compared
                    data.finish()
                    if data.hexdigest() != part["sha256"]:
                        raise SnapshotRejected("a checksum does not match (the file is corrupt)") from None
                    raise SnapshotRejected(f"a partition cannot be restored ({exc})") from None
                data.finish()
                if data.hexdigest() != part["sha256"]:
                    raise SnapshotRejected("a checksum does not match (the file is corrupt)")
            if stream.read(1):
                raise SnapshotRejected("the file has bytes past its last partition")
        return Loaded(int(header["watermark"]), len(index), time.perf_counter() - started)

    @staticmethod
    def _check(header: Any, collection: str, dimension: int, embedding_model: str, feed_last_id: int) -> None:
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise SnapshotRejected("it is of another format")
        if header.get("collection") != collection:
            raise SnapshotRejected(f"it holds {header.get('collection')!r}, not {collection!r}")
        if header.get("embedding_model") != embedding_model or header.get("dimension") != dimension:
            raise SnapshotRejected(
                f"it was built with {header.get('embedding_model')!r} ({header.get('dimension')}-d), "
                f"not {embedding_model!r} ({dimension}-d)"
            )
        if not isinstance(header.get("watermark"), int) or header["watermark"] > feed_last_id:
            raise SnapshotRejected("it is ahead of the database's change feed (the database was recreated)")

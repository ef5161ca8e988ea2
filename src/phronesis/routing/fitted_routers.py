"""Fitted routers kept by what they were fitted from, so that one fit serves every later ask.

Why: a fit is the only thing in routing that costs seconds, and without this the same fit repeats: the
bundled router once per process, inside the first routed request of every fresh server (25.6 s
for a first turn on a loaded machine, past a client's 30 s budget), and once per test.

A fit is deterministic for its inputs (zero-initialised weights, full-batch Adam, a seeded
holdout), so its result is looked up by a digest of all of them: the exemplars (and the
out-of-scope and validation lines), the fit options, the exemplars' vectors as this embedder
makes them (a different model, dimension or runtime is a different fit), and the source of the
fitting code itself (a change to the classifier or the calibration is a different fit). A
router is never served for inputs it was not fitted on.

Two layers: a small in-process table (every caller), and a directory for the bundled router
(fitted at a server's first start, before it answers, and read by every later process).
Writes are atomic (a temporary file, then a rename), so processes starting together never
read half a router; a file that cannot be read is fitted again and replaced.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import logging
import os
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import asdict
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from phronesis.embeddings.types import Embedder
from phronesis.routing.exemplars import Exemplar
from phronesis.routing.local_router import EMBED_BATCH, LocalRouter, RouterFitOptions

__all__ = ["FittedRouters", "default_router_dir", "fit_digest"]

log = logging.getLogger(__name__)

_FITTING_CODE = ("classifier.py", "local_router.py", "calibration.py", "lexical.py", "fitted_routers.py")
"""The modules whose source decides what a fit produces."""

_MEMORY_SIZE = 8
"""Routers held in the process table (the largest measured, CLINC150's, is about 20 MB)."""
_KEPT_FILES = 16
"""Routers kept in a directory: a change to the fitting code or the exemplars makes a new file, and
the oldest beyond these go (a developer's cache would otherwise grow with every change)."""


def default_router_dir() -> Path:
    """Where bundled routers are kept: one per machine, beside the model caches."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "phronesis" / "routers"


def _code_digest() -> bytes:
    package = resources.files("phronesis.routing")
    digest = hashlib.sha256()
    for name in _FITTING_CODE:
        digest.update(package.joinpath(name).read_bytes())
    return digest.digest()


_CODE = _code_digest()


async def fit_digest(
    embedder: Embedder,
    exemplars: Sequence[Exemplar],
    oos: Sequence[Exemplar],
    validation: Sequence[Exemplar],
    options: RouterFitOptions,
) -> str:
    """The digest of everything a fit depends on. Embeds every text once (the fit's own embedding
    of them is then a cache hit wherever the embedder caches)."""
    lines = [[e.text, e.label, e.decision.value if e.decision else None] for e in (*exemplars, *oos, *validation)]
    digest = hashlib.sha256(_CODE)
    digest.update(json.dumps([embedder.model_name, embedder.dimension, len(exemplars), len(oos)]).encode())
    digest.update(json.dumps(lines, ensure_ascii=False).encode())
    digest.update(json.dumps(asdict(options), sort_keys=True, default=str).encode())
    texts = [e.text for e in (*exemplars, *oos, *validation)]
    for start in range(0, len(texts), EMBED_BATCH):
        vectors = await embedder.embed(texts[start : start + EMBED_BATCH])
        # four decimals: the same model on the same machine, whatever batch it ran in
        digest.update(np.round(np.asarray(vectors, dtype=np.float32), 4).tobytes())
    return digest.hexdigest()


class FittedRouters:
    """Fit, or find the fit already made for the same inputs."""

    _memory: OrderedDict[str, tuple[dict[str, Any], bytes]] = OrderedDict()
    _memory_lock = threading.Lock()

    def __init__(self, directory: Path | None = None) -> None:
        self._directory = directory
        """Where routers are also written for other processes; None: the process table only."""

    async def fit(
        self,
        exemplars: Sequence[Exemplar],
        embedder: Embedder,
        *,
        oos: Sequence[Exemplar] = (),
        validation: Sequence[Exemplar] = (),
        options: RouterFitOptions | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> LocalRouter:
        options = options or RouterFitOptions()
        key = await fit_digest(embedder, exemplars, oos, validation, options)
        found = self._recall(key)
        if found is not None:
            if progress is not None:
                progress("the same exemplars were fitted before with this model: that fit is used")
            return found
        started = time.perf_counter()
        fitted = await LocalRouter.fit(
            exemplars, embedder, oos=oos, validation=validation, options=options, progress=progress
        )
        held = fitted.metadata(), fitted.weights()
        self._keep(key, *held)
        if self._directory is not None:
            log.info(
                "router fitted on %d exemplars with %s in %.1f s, kept at %s",
                len(exemplars),
                embedder.model_name,
                time.perf_counter() - started,
                self._directory / f"{key}.json",
            )
        # as stored (its exemplars in float16): the process that fitted answers as every process
        # that reads it does
        return LocalRouter.restore(*held)

    def _recall(self, key: str) -> LocalRouter | None:
        with self._memory_lock:
            held = self._memory.get(key)
            if held is not None:
                self._memory.move_to_end(key)
        if held is None and self._directory is not None:
            held = self._read(self._directory / f"{key}.json")
            if held is not None:
                where = self._directory / f"{key}.json"
                log.info("router read from %s (fitted earlier on the same exemplars and model)", where)
                self._remember(key, held)
        return None if held is None else LocalRouter.restore(*held)

    def _keep(self, key: str, metadata: dict[str, Any], weights: bytes) -> None:
        self._remember(key, (metadata, weights))
        if self._directory is not None:
            self._write(self._directory / f"{key}.json", metadata, weights)
            _prune(self._directory, _KEPT_FILES)

    def _remember(self, key: str, held: tuple[dict[str, Any], bytes]) -> None:
        with self._memory_lock:
            self._memory[key] = held
            self._memory.move_to_end(key)
            while len(self._memory) > _MEMORY_SIZE:
                self._memory.popitem(last=False)

    @staticmethod
    def _read(path: Path) -> tuple[dict[str, Any], bytes] | None:
        try:
            stored = json.loads(path.read_text("utf-8"))
            held = dict(stored["metadata"]), base64.b64decode(stored["weights"], validate=True)
            LocalRouter.restore(*held)  # a file that does not restore is fitted again, not served
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("fitting the router again: %s cannot be read (%s)", path, exc)
            return None
        return held

    @staticmethod
    def _write(path: Path, metadata: dict[str, Any], weights: bytes) -> None:
        body = json.dumps({"metadata": metadata, "weights": base64.b64encode(weights).decode("ascii")})
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=path.stem, suffix=".partial", dir=path.parent)
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    out.write(body)
                os.replace(temporary, path)
            finally:
                Path(temporary).unlink(missing_ok=True)
        except OSError as exc:  # a read-only home still routes: the router is held in this process
            log.warning("the fitted router is not kept on disk: %s (%s)", path, exc)


def _prune(directory: Path, keep: int) -> None:
    """The newest ``keep`` routers of ``directory`` stay; a file another process removes first is fine."""
    try:
        stored = sorted(directory.glob("*.json"), key=lambda path: path.stat().st_mtime, reverse=True)
    except OSError:
        return
    for stale in stored[keep:]:
        with contextlib.suppress(OSError):
            stale.unlink()

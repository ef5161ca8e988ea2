"""Coalesce concurrent small ``embed`` calls into one model call.

One text at a time the local model manages ~70 texts/s (p50 13.8 ms); in batches of 64
it manages ~450 texts/s on this 2-core machine. Under concurrent load this batcher is
how the service gets near the second figure: requests that arrive while a batch is
being computed wait and go together in the next one. An idle model starts at once
(``max_wait_ms`` 0, the default, still coalesces requests of the same event-loop tick);
a positive wait trades first-request latency for bigger batches. Only one batch runs at
a time, since a second concurrent forward pass would just fight the first for the same
cores.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np

from phronesis.embeddings.types import Embedder, Vectors
from phronesis.embeddings.wrapper import EmbedderWrapper

__all__ = ["MicroBatchingEmbedder"]

_Waiter = tuple[Sequence[str], "asyncio.Future[Vectors]"]


class MicroBatchingEmbedder(EmbedderWrapper):
    def __init__(self, inner: Embedder, *, max_batch_size: int = 64, max_wait_ms: float = 0.0) -> None:
        super().__init__(inner)
        self._max_batch_size = max_batch_size
        self._max_wait_s = max_wait_ms / 1000.0
        self._pending: list[_Waiter] = []
        self._pending_texts = 0
        self._timer: asyncio.TimerHandle | None = None
        self._busy = False
        self._tasks: set[asyncio.Task[None]] = set()
        self.batches = 0
        """Model calls made; with ``texts_embedded`` this gives the mean batch size."""
        self.texts_embedded = 0

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Vectors] = loop.create_future()
        self._pending.append((texts, future))
        self._pending_texts += len(texts)
        if self._pending_texts >= self._max_batch_size:
            self._flush()
        elif self._timer is None and not self._busy:
            self._timer = loop.call_later(self._max_wait_s, self._flush)
        return await future

    def _flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._busy or not self._pending:
            return  # the running batch flushes again when it finishes
        batch, self._pending, self._pending_texts = self._pending, [], 0
        self._busy = True
        task = asyncio.get_running_loop().create_task(self._run(batch))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, batch: list[_Waiter]) -> None:
        texts = [text for waiter_texts, _ in batch for text in waiter_texts]
        try:
            vectors = await self.inner.embed(texts)
        except BaseException as exc:  # every waiter gets the failure, none hangs
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
        else:
            self.batches += 1
            self.texts_embedded += len(texts)
            offset = 0
            for waiter_texts, future in batch:
                if not future.done():
                    future.set_result(vectors[offset : offset + len(waiter_texts)])
                offset += len(waiter_texts)
        finally:
            self._busy = False
            if self._pending:
                self._flush()

"""``/readyz``: can this process decide right now? Each part checked, each with its state.

``/healthz`` is liveness (the process answers); readiness is what a load balancer routes on:
the database and the embedder are required (503 when either is down); the LLM is reported
but only required with ``api.ready_requires_llm``: without it a decision still runs on
heuristics and the local router, saying it is degraded. Every check has a short timeout, and
results are kept for ``ttl_s`` so a probe every second costs one check, not one per probe.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from phronesis.engine import Engine
from phronesis.exceptions import PhronesisError
from phronesis.llm.probe import probe
from phronesis.schema import Schema

__all__ = ["PartState", "Readiness", "ReadinessReport"]

State = Literal["ok", "unavailable", "not_configured", "unknown"]


class PartState(Schema):
    state: State
    """``ok``; ``unavailable`` (it failed or did not answer in time: see ``detail``); ``not_configured`` (no LLM is
    configured); ``unknown`` (the LLM cannot be checked without a paid call, so it was not)."""
    required: bool
    """Whether readiness depends on this part: the database and the embedder always, the LLM only when the server
    requires it (``api.ready_requires_llm``)."""
    detail: str | None = None
    """Why the part is unavailable: the timeout, or the error. None: the check did not fail."""
    latency_ms: float | None = None
    """How long the check took, in milliseconds."""
    checked_at: float
    """Unix time of the check (a cached state says how old it is)."""


class ReadinessReport(Schema):
    status: Literal["ready", "not_ready"]
    """``ready`` (HTTP 200) when every required part is ``ok`` or ``unknown``, else ``not_ready`` (HTTP 503)."""
    parts: dict[str, PartState]
    """Each part's state, by name: ``database``, ``embedder`` and ``llm``."""


@dataclass
class _Cached:
    state: PartState | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


@dataclass
class Readiness:
    engine: Engine
    timeout_s: float = 2.0
    ttl_s: float = 5.0
    llm_ttl_s: float = 30.0
    requires_llm: bool = False
    _cache: dict[str, _Cached] = field(default_factory=dict)

    async def report(self) -> ReadinessReport:
        parts = dict(
            zip(
                ("database", "embedder", "llm"),
                await asyncio.gather(
                    self._part("database", True, self.ttl_s, self._database),
                    self._part("embedder", True, self.ttl_s, self._embedder),
                    self._part("llm", self.requires_llm, self.llm_ttl_s, self._llm),
                ),
                strict=True,
            )
        )
        ready = all(p.state in ("ok", "unknown") or not p.required for p in parts.values())
        return ReadinessReport(status="ready" if ready else "not_ready", parts=parts)

    async def _part(self, name: str, required: bool, ttl_s: float, check: Callable[[], Awaitable[State]]) -> PartState:
        cached = self._cache.setdefault(name, _Cached())
        async with cached.lock:  # concurrent probes share one check
            if cached.state is not None and time.time() - cached.state.checked_at < ttl_s:
                return cached.state
            started = time.perf_counter()
            detail = None
            try:
                state = await asyncio.wait_for(check(), self.timeout_s)
            except TimeoutError:
                state, detail = "unavailable", f"no answer within {self.timeout_s:g} s"
            except PhronesisError as error:
                state, detail = "unavailable", f"{type(error).__name__}: {error}"
            latency = round((time.perf_counter() - started) * 1000, 2)
            cached.state = PartState(
                state=state, required=required, detail=detail, latency_ms=latency, checked_at=time.time()
            )
            return cached.state

    async def _database(self) -> State:
        await self.engine.database.check()  # StorageUnavailable says why
        return "ok"

    async def _embedder(self) -> State:
        await self.engine.embedder.embed(["readiness"])
        return "ok"

    async def _llm(self) -> State:
        if self.engine.llm is None:
            return "not_configured"
        return "ok" if await probe(self.engine.llm) else "unknown"

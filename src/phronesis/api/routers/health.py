"""Liveness (``/healthz``), readiness (``/readyz``) and Prometheus metrics (no API key needed; the
metrics token, when one is set)."""

from __future__ import annotations

import hmac
import os

from fastapi import APIRouter, HTTPException, Request, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from phronesis.api.deps import EngineDep
from phronesis.api.metrics import Metrics
from phronesis.api.readiness import Readiness, ReadinessReport
from phronesis.audit.rollups import DecisionRollups
from phronesis.embeddings.cache import CachedEmbedder
from phronesis.engine import Engine
from phronesis.storage.hnsw_index import faiss_installed

router = APIRouter(tags=["operations"])


@router.get("/healthz", summary="Liveness: the process answers (what it runs with; no dependency is checked)")
async def healthz(engine: EngineDep) -> JSONResponse:
    """Liveness only: a database or LLM outage must not get a healthy process restarted.
    Whether it can decide right now is ``/readyz``."""
    heuristics, heuristic_partitions = engine.heuristics.indexed()
    runs, run_partitions = engine.admission.indexed()
    body = {
        "status": "ok" if engine.started else "starting",
        "index_backend": engine.index_backend,
        "index_search": _searched(engine),
        "index": {"size": heuristics, "partitions": heuristic_partitions},
        "runs_index": {"size": runs, "partitions": run_partitions},
        "llm": engine.llm.model_name if engine.llm else None,
        "embedder": engine.embedder.model_name,
        "process": os.getpid(),  # which worker of `serve --workers N` answered
    }
    return JSONResponse(body, status_code=200 if engine.started else 503)


def _searched(engine: Engine) -> str:
    """How vectors are searched, in words: ``hnsw`` is exact search until a partition outgrows
    ``index.exact_max_size`` (it read as if every partition were a graph)."""
    if engine.index_backend == "pgvector":
        return "in PostgreSQL (pgvector); this process holds no index"
    if engine.index_backend == "exact" or not faiss_installed():
        return "in this process, exact (every vector compared)"
    limit = engine.settings.index.exact_max_size
    return f"in this process: exact up to {limit:,} vectors a partition, an HNSW graph above"


@router.get(
    "/readyz",
    summary="Readiness: database, embedder and LLM checked (cached); 503 when a required part is down",
    response_model=ReadinessReport,
    responses={503: {"model": ReadinessReport, "description": "a required part is down"}},
)
async def readyz(request: Request) -> JSONResponse:
    readiness: Readiness = request.app.state.readiness
    report = await readiness.report()
    return JSONResponse(report.model_dump(mode="json"), status_code=200 if report.status == "ready" else 503)


@router.get("/metrics", summary="Prometheus metrics", response_class=Response)
async def metrics(request: Request, engine: EngineDep) -> Response:
    token = engine.settings.api.metrics_token
    if token is not None:
        scheme, _, presented = request.headers.get("authorization", "").partition(" ")
        expected = token.get_secret_value().encode()
        if scheme.lower() != "bearer" or not hmac.compare_digest(presented.strip().encode(), expected):
            raise HTTPException(401, "/metrics needs its token: Authorization: Bearer <PHRONESIS_API__METRICS_TOKEN>",
                                headers={"WWW-Authenticate": 'Bearer realm="phronesis metrics"'})  # fmt: skip
    registry: Metrics = request.app.state.metrics
    registry.heuristics_indexed.set(engine.heuristics.indexed()[0])
    registry.runs_indexed.set(engine.admission.indexed()[0])
    if isinstance(engine.embedder, CachedEmbedder):
        registry.embedding_cache.labels("hit").set(engine.embedder.hits)
        registry.embedding_cache.labels("miss").set(engine.embedder.misses)
    for reason, count in (await engine.admission.fallbacks()).items():
        registry.admission_fallbacks.labels(reason).set(count)
    for name, value in (await engine.proactive.counter_totals()).items():
        registry.proactive.labels(name).set(value)
    calls: dict[str, int] = {}
    without: dict[str, int] = {}
    for kind, path, decisions, llm_calls, no_llm in await DecisionRollups(engine.database).totals():
        registry.decisions.labels(kind, path).set(decisions)
        calls[kind] = calls.get(kind, 0) + llm_calls
        without[kind] = without.get(kind, 0) + no_llm
    for kind in calls:
        registry.decision_llm_calls.labels(kind).set(calls[kind])
        registry.decisions_without_llm.labels(kind).set(without[kind])
    return Response(generate_latest(registry.registry), media_type=CONTENT_TYPE_LATEST)

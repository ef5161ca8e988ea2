"""Liveness, readiness and Prometheus metrics (no API key needed)."""

from __future__ import annotations

import os

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from phronesis.api.deps import EngineDep
from phronesis.api.metrics import Metrics

router = APIRouter(tags=["operations"])


@router.get("/healthz", summary="Health: database reachable, index loaded")
async def healthz(engine: EngineDep) -> JSONResponse:
    database_ok = await engine.database.ping()
    body = {
        "status": "ok" if database_ok and engine.started else "degraded",
        "database": "ok" if database_ok else "unavailable",
        "index_backend": engine.index_backend,
        "index": {"size": len(engine.heuristics.vectors), "partitions": engine.heuristics.vectors.kinds()},
        "runs_index": {"size": len(engine.admission.index), "partitions": engine.admission.index.kinds()},
        "llm": engine.llm.model_name if engine.llm else None,
        "embedder": engine.embedder.model_name,
        "process": os.getpid(),  # which worker of `serve --workers N` answered
    }
    return JSONResponse(body, status_code=200 if body["status"] == "ok" else 503)


@router.get("/metrics", summary="Prometheus metrics", response_class=Response)
async def metrics(request: Request, engine: EngineDep) -> Response:
    registry: Metrics = request.app.state.metrics
    registry.heuristics_indexed.set(len(engine.heuristics.vectors))
    registry.runs_indexed.set(len(engine.admission.index))
    return Response(generate_latest(registry.registry), media_type=CONTENT_TYPE_LATEST)

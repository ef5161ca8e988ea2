"""Prometheus metrics, on a registry per app so several apps (tests) never collide."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from fastapi import FastAPI, Request, Response
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

__all__ = ["Metrics", "install_metrics"]


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "phronesis_http_requests", "HTTP requests", ["method", "route", "status"], registry=self.registry
        )
        self.latency = Histogram(
            "phronesis_http_request_duration_seconds",
            "HTTP request latency",
            ["route"],
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
            registry=self.registry,
        )
        self.heuristics_indexed = Gauge(
            "phronesis_heuristics_indexed", "Heuristics in the vector index", registry=self.registry
        )


def install_metrics(app: FastAPI, metrics: Metrics) -> None:
    @app.middleware("http")
    async def measure(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        started = time.perf_counter()
        response = await call_next(request)
        route = request.scope.get("route")
        template = getattr(route, "path", "(unmatched)")
        metrics.requests.labels(request.method, template, str(response.status_code)).inc()
        metrics.latency.labels(template).observe(time.perf_counter() - started)
        return response

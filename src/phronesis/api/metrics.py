"""Prometheus metrics, on a registry per app so several apps (tests) never collide.

The middleware is plain ASGI rather than Starlette's ``BaseHTTPMiddleware``: the latter
runs each request through a task group and a memory stream, which the profile of the
decide endpoint showed costing more than the decision itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["Metrics", "MetricsMiddleware"]


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
        self.runs_indexed = Gauge(
            "phronesis_runs_indexed", "Active agent runs in the admission vector index", registry=self.registry
        )
        self.admission_fallbacks = Gauge(
            "phronesis_admission_fallbacks",
            "Admissions whose LLM judge's answer was unusable (the fail-safe decided) or cut off and "
            "repaired (reason repaired_output), by reason; counted in the database, the same on every worker",
            ["reason"],
            registry=self.registry,
        )
        self.proactive = Gauge(
            "phronesis_proactive_events",
            "Proactive counters summed over tenants, counted in the database (the same on every worker): "
            "cycle:<outcome> (sent and every block reason), llm_calls, prompt_tokens, completion_tokens, "
            "delivery:<status>, feedback:<outcome>, opt_out:<all|category|topic>, mute:<all|topic>, "
            "opt_in:<all|category|topic>, signal:expired_undelivered (a failed message's signals whose moment passed)",
            ["name"],
            registry=self.registry,
        )
        self.embedding_cache = Gauge(
            "phronesis_embedding_cache_lookups",
            "Texts looked up in this worker's embedding cache since it started, by result (hit or miss); "
            "each tenant has entries of its own",
            ["result"],
            registry=self.registry,
        )
        self.decisions = Gauge(
            "phronesis_decisions",
            "Decisions by decision point (kind) and path, every tenant's, counted in the database as the "
            "hourly rollups hold them (closed hours; they outlive the records' purge, so they only grow)",
            ["kind", "path"],
            registry=self.registry,
        )
        self.decision_llm_calls = Gauge(
            "phronesis_decision_llm_calls",
            "LLM calls made deciding, by decision point (kind), as the hourly rollups hold them",
            ["kind"],
            registry=self.registry,
        )
        self.decisions_without_llm = Gauge(
            "phronesis_decisions_without_llm",
            "Decisions made with no LLM call, by decision point (kind), as the hourly rollups hold them",
            ["kind"],
            registry=self.registry,
        )
        self.loop_failures = Counter(
            "phronesis_background_loop_failures",
            "Failed steps of the server's background loops (each retried with backoff)",
            ["loop"],
            registry=self.registry,
        )

    def loop_failures_counter(self) -> Callable[[str], None]:
        """What a ``PeriodicLoop`` calls at each failure."""
        return lambda name: self.loop_failures.labels(name).inc()


class MetricsMiddleware:
    """Counts requests by route template and status, and observes their latency."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # an exception before the response started is a server error

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            # the router writes the matched route into the scope it was given, which is ours; a
            # mount (the dashboard's static files) writes its prefix into root_path instead
            template = getattr(scope.get("route"), "path", None) or _mounted(scope)
            if template is None:  # no route: the router's own redirect to the path with(out) its slash, or a 404
                template = "(slash redirect)" if status in (307, 308) else "(unmatched)"
            self.metrics.requests.labels(scope["method"], template, str(status)).inc()
            self.metrics.latency.labels(template).observe(time.perf_counter() - started)


def _mounted(scope: Scope) -> str | None:
    """The template of a request a mount answered (``/ui/static/{path}``), else None."""
    root, app_root = scope.get("root_path", ""), scope.get("app_root_path", "")
    prefix = root[len(app_root) :] if root.startswith(app_root) else ""
    return f"{prefix}/{{path}}" if prefix else None

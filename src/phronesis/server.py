"""The HTTP server's application: the API's routers (``phronesis.api``: thin adapters over
``Engine``, one router per concern), the dashboard (``phronesis.ui``) and MCP (``phronesis.mcp``)
on one FastAPI app. It sits above all three: they share the API's authentication and problems."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import importlib.util
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from types import ModuleType

from fastapi import Depends, FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from phronesis import __version__
from phronesis.api.body_limit import BodyLimitMiddleware
from phronesis.api.loopback_guard import LoopbackGuardMiddleware
from phronesis.api.metrics import Metrics, MetricsMiddleware
from phronesis.api.nul_guard import NulGuardMiddleware
from phronesis.api.openapi import document
from phronesis.api.problems import install_problem_handlers
from phronesis.api.query_guard import known_query_only
from phronesis.api.rate_limit import RateLimitMiddleware
from phronesis.api.readiness import Readiness
from phronesis.api.request_ids import RequestIdMiddleware
from phronesis.api.routers import (
    admission,
    decisions,
    events,
    feedback,
    health,
    heuristics,
    learning,
    proactive,
    replay,
    routing,
)
from phronesis.api.routers import settings as settings_router
from phronesis.api.security_headers import SecurityHeadersMiddleware
from phronesis.audit.rollups import MARGIN, DecisionRollups
from phronesis.engine import Engine
from phronesis.logs import configure_logging
from phronesis.loops import PeriodicLoop
from phronesis.processes.document_jobs import JobProcess

__all__ = ["create_app", "create_worker_app"]

log = logging.getLogger("phronesis.api")


PURGE_INTERVAL_S = 3600.0

_ROOT = (
    "<!doctype html><html lang=en><meta charset=utf-8><title>phronesis</title>"
    "<link rel=icon href=/ui/static/favicon.svg type=image/svg+xml>"
    "<h1>phronesis</h1><ul><li><a href=/ui>Dashboard</a></li><li><a href=/docs>API (OpenAPI)</a></li></ul></html>"
)
_ROOT_WITHOUT_DASHBOARD = _ROOT.replace("<li><a href=/ui>Dashboard</a></li>", "")


def optional_surface(module: str, dependency: str, extra: str, what: str) -> ModuleType | None:
    """``module`` when ``dependency`` is installed, else None, said in the log: the dashboard and
    MCP are extras (``ui``, ``mcp``), and a server without one serves the rest rather than fail.
    Checked by the dependency's presence, so an error in phronesis's own module still raises."""
    if importlib.util.find_spec(dependency) is None:
        log.warning("%s is off: %s is not installed (pip install 'phronesis[%s]')", what, dependency, extra)
        return None
    return importlib.import_module(module)


async def _docs() -> HTMLResponse:
    """The API's interactive documentation, every asset from this server (offline too)."""
    return get_swagger_ui_html(
        openapi_url="/openapi.json",
        title="phronesis API",
        swagger_js_url="/api-static/swagger-ui-bundle.js",
        swagger_css_url="/api-static/swagger-ui.css",
        swagger_favicon_url="/ui/static/favicon.svg",
    )


async def _root() -> HTMLResponse:
    """The root points people to the dashboard and to the API's documentation."""
    return HTMLResponse(_ROOT)


async def _root_without_dashboard() -> HTMLResponse:
    """The root of a server without the dashboard: the API's documentation."""
    return HTMLResponse(_ROOT_WITHOUT_DASHBOARD)


async def _purge(engine: Engine) -> None:
    """Time-based retention (``audit.retention_days``; proactive signals, sends and insights done
    with after ``proactive.retention_days``; superseded runs after
    ``admission.superseded_retention_days`` where it is set), whatever the table size."""
    purged = await engine.purge_decisions()
    if purged:
        log.info("purged %d decision records older than %g days", purged, engine.settings.audit.retention_days)
    proactive = {name: n for name, n in (await engine.proactive.purge()).items() if n}
    if proactive:
        log.info("purged proactive %s older than %g days", proactive, engine.settings.proactive.retention_days)
    runs = await engine.admission.purge_superseded()
    if runs:
        days = engine.settings.admission.superseded_retention_days
        log.info("purged %d runs superseded more than %g days ago", runs, days)


async def _rollups(engine: Engine) -> None:
    """The dashboard's hourly rollups made on the clock, not on a page's first view."""
    recent = timedelta(seconds=engine.settings.audit.rollup_interval_s) + MARGIN + timedelta(hours=2)
    done = await DecisionRollups(engine.database).ensure_active(engine.clock.now(), recent=recent)
    if done:
        log.debug("decision rollups up to date for %d tenants", len(done))


async def _proactive_tick(engine: Engine) -> None:
    """Seed 004's loop, embedded: every ``cycle_minutes`` a cycle for every due user of every tenant.

    At scale the same tick runs as a Celery beat task instead (``phronesis beat``), and
    ``proactive.scheduler`` is switched off here.
    """
    await engine.proactive.collect_calendars()
    report = await engine.proactive.tick()
    if report.users:
        log.info(
            "proactive tick %s: %d users, %d sent, %d LLM calls",
            report.cycle_key,
            report.users,
            report.sent,
            report.llm_calls,
        )


def _loops(engine: Engine, metrics: Metrics, jobs: JobProcess | None) -> list[PeriodicLoop]:
    """The server's work on a clock, each loop outliving its failures (see ``phronesis.loops``)."""
    count = metrics.loop_failures_counter()
    loops = [
        PeriodicLoop("decision-purge", lambda: _purge(engine), PURGE_INTERVAL_S, on_failure=count),
        # seed 001: "no complaint within the window" becomes a timeout positive on the clock
        PeriodicLoop(
            "learning-sweep", engine.learning.sweep, engine.settings.learning.sweep_interval_sec, on_failure=count
        ),
    ]
    # documents too many for one request, stored in the background (processes.document_jobs)
    step = jobs.step if jobs is not None else engine.routing.run_document_jobs
    loops.append(PeriodicLoop("document-jobs", step, engine.settings.routing.document_job_poll_s, on_failure=count))
    rollup_every = engine.settings.audit.rollup_interval_s
    if rollup_every > 0:
        loops.append(PeriodicLoop("decision-rollups", lambda: _rollups(engine), rollup_every, on_failure=count))
    if engine.settings.proactive.scheduler:
        interval = engine.settings.proactive.cycle_minutes * 60
        loops.append(PeriodicLoop("proactive-scheduler", lambda: _proactive_tick(engine), interval, on_failure=count))
    return loops


def create_worker_app() -> FastAPI:
    """One worker of ``phronesis serve --workers N``: settings from the environment, the schema
    already migrated by the parent. Each worker keeps its own indexes, following the database."""
    engine = Engine()
    configure_logging(engine.settings.log_level, engine.settings.log_format)
    return create_app(engine, close_engine=True, migrate=False)


def create_app(engine: Engine | None = None, *, close_engine: bool | None = None, migrate: bool = True) -> FastAPI:
    """Build the app. The engine is started at start-up if needed; it is closed at shutdown
    if the app built it, or if ``close_engine`` says so (its pool lives in the server's loop).
    """
    owns_engine = engine is None if close_engine is None else close_engine
    the_engine = engine or Engine()

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if not the_engine.started:
            await the_engine.start(migrate=migrate)
        if the_engine.settings.api.warm_up:
            await the_engine.warm_up()
        log.info("%s", the_engine.summary())  # after the model loaded: ready means ready
        if the_engine.settings.api.dev_mode:
            log.warning(
                "DEV MODE: requests without an API key are accepted from 127.0.0.1 as tenant %r. "
                "Never expose this server.",
                the_engine.settings.api.dev_tenant,
            )
        loop = asyncio.get_running_loop()
        routing = the_engine.settings.routing
        jobs = (
            JobProcess(the_engine.routing.jobs_waiting, nice=routing.document_job_nice)
            if routing.document_jobs_in == "process"
            else None
        )
        periodic = [
            loop.create_task(each.run(), name=each.name) for each in _loops(the_engine, app.state.metrics, jobs)
        ]
        try:
            mcp = app.state.mcp
            # /mcp's transports live in the server's loop
            async with mcp.session_manager.run() if mcp is not None else contextlib.nullcontext():
                yield
        finally:
            for task in periodic:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            if jobs is not None:
                await jobs.close()
            if owns_engine:
                await the_engine.close()

    app = FastAPI(
        title="phronesis",
        version=__version__,
        description="A decision engine for LLM agents.",
        lifespan=lifespan,
        docs_url=None,  # served below from the package: FastAPI's loads Swagger UI from a CDN
        redoc_url=None,
    )
    app.state.engine = the_engine
    app.state.metrics = Metrics()
    app.state.readiness = Readiness(the_engine, requires_llm=the_engine.settings.api.ready_requires_llm)
    install_problem_handlers(app)
    document(app)
    # the last one added runs first: the body limit refuses before anything else reads
    app.add_middleware(MetricsMiddleware, metrics=app.state.metrics)
    app.add_middleware(NulGuardMiddleware)  # inside the body limit: what it reads is bounded
    app.add_middleware(
        BodyLimitMiddleware,
        max_bytes=the_engine.settings.api.max_body_bytes,
        body_timeout_s=the_engine.settings.api.body_timeout_s,
    )
    app.add_middleware(RequestIdMiddleware)
    app.add_middleware(RateLimitMiddleware, settings=the_engine.settings.api.rate_limits)
    app.add_middleware(SecurityHeadersMiddleware)
    if the_engine.settings.api.dev_mode:  # keyless: only requests addressed to loopback (DNS rebinding)
        app.add_middleware(LoopbackGuardMiddleware)
    app.include_router(health.router)
    known_query = [Depends(known_query_only)]  # an unknown query parameter is a 422, as a body's field is
    for api in (heuristics, decisions, events, feedback, learning, routing, admission, proactive, replay):
        app.include_router(api.router, dependencies=known_query)
    app.include_router(settings_router.router, dependencies=known_query)
    dashboard = optional_surface("phronesis.ui", "jinja2", "ui", "the dashboard (/ui)")
    if dashboard is not None:
        app.include_router(dashboard.router)
        app.mount("/ui/static", StaticFiles(packages=[("phronesis.ui", "static")]), name="ui-static")
    root = _root if dashboard is not None else _root_without_dashboard
    app.add_api_route("/", root, include_in_schema=False, response_class=HTMLResponse)
    app.mount("/api-static", StaticFiles(packages=[("phronesis.api", "static")]), name="api-static")
    app.add_api_route("/docs", _docs, include_in_schema=False, response_class=HTMLResponse)
    mcp_http = optional_surface("phronesis.mcp.http", "mcp", "mcp", "MCP over HTTP (/mcp)")
    app.state.mcp = None if mcp_http is None else mcp_http.mount(app, the_engine)
    if the_engine.tracing is not None:  # a server span per request, the parent of its decisions
        the_engine.tracing.instrument_app(app)
    return app

"""The FastAPI application: thin adapters over ``Engine``, one router per concern."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from phronesis import __version__
from phronesis.api.body_limit import BodyLimitMiddleware
from phronesis.api.metrics import Metrics, MetricsMiddleware
from phronesis.api.problems import install_problem_handlers
from phronesis.api.routers import (
    admission,
    decisions,
    events,
    feedback,
    health,
    heuristics,
    learning,
    proactive,
    routing,
)
from phronesis.engine import Engine
from phronesis.exceptions import PhronesisError

__all__ = ["configure_logging", "create_app", "create_worker_app"]

log = logging.getLogger("phronesis.api")


PURGE_INTERVAL_S = 3600.0


async def _sweep_periodically(engine: Engine) -> None:
    """Seed 001: "no complaint within the window" becomes a timeout positive on the clock, not on the next event."""
    interval = engine.settings.learning.sweep_interval_sec
    while True:
        try:
            await engine.learning.sweep()
        except PhronesisError as exc:
            log.error("learning sweep failed: %s", exc)
        await asyncio.sleep(interval)


async def _purge_periodically(engine: Engine) -> None:
    """Time-based retention (``audit.retention_days``), whatever the table size; a failed purge waits an hour."""
    while True:
        try:
            purged = await engine.purge_decisions()
            if purged:
                log.info("purged %d decision records older than %g days", purged, engine.settings.audit.retention_days)
        except PhronesisError as exc:
            log.error("decision purge failed: %s", exc)
        await asyncio.sleep(PURGE_INTERVAL_S)


async def _proactive_periodically(engine: Engine) -> None:
    """Seed 004's loop, embedded: every ``cycle_minutes`` a cycle for every due user of every tenant.

    At scale the same tick runs as a Celery beat task instead (``phronesis beat``), and
    ``proactive.scheduler`` is switched off here.
    """
    interval = engine.settings.proactive.cycle_minutes * 60
    while True:
        try:
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
        except PhronesisError as exc:
            log.error("proactive tick failed: %s", exc)
        await asyncio.sleep(interval)


class _ServerLogHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Standard error, once (``configure_logging`` may run twice in one process)."""


def configure_logging(level: str) -> None:
    """The server's own lines (``phronesis.*``) on standard error beside uvicorn's, at ``level``.
    Only the ``phronesis`` logger is touched: an application embedding the engine keeps its own."""
    logger = logging.getLogger("phronesis")
    if not any(isinstance(handler, _ServerLogHandler) for handler in logger.handlers):
        handler = _ServerLogHandler()
        handler.setFormatter(logging.Formatter("%(levelname)-8s %(name)s: %(message)s"))
        logger.addHandler(handler)
    logger.setLevel(level.upper())
    logger.propagate = False


def create_worker_app() -> FastAPI:
    """One worker of ``phronesis serve --workers N``: settings from the environment, the schema
    already migrated by the parent. Each worker keeps its own indexes, following the database."""
    engine = Engine()
    configure_logging(engine.settings.log_level)
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
            await the_engine.embedder.embed(["warm-up"])
        if the_engine.settings.api.dev_mode:
            log.warning(
                "DEV MODE: requests without an API key are accepted from 127.0.0.1 as tenant %r. "
                "Never expose this server.",
                the_engine.settings.api.dev_tenant,
            )
        loop = asyncio.get_running_loop()
        periodic = [
            loop.create_task(_purge_periodically(the_engine), name="purge"),
            loop.create_task(_sweep_periodically(the_engine), name="learning-sweep"),
        ]
        if the_engine.settings.proactive.scheduler:
            periodic.append(loop.create_task(_proactive_periodically(the_engine), name="proactive-scheduler"))
        try:
            yield
        finally:
            for task in periodic:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            if owns_engine:
                await the_engine.close()

    app = FastAPI(
        title="phronesis",
        version=__version__,
        description="A decision engine for LLM agents.",
        lifespan=lifespan,
    )
    app.state.engine = the_engine
    app.state.metrics = Metrics()
    install_problem_handlers(app)
    # the last one added runs first: the body limit refuses before anything else reads
    app.add_middleware(MetricsMiddleware, metrics=app.state.metrics)
    app.add_middleware(BodyLimitMiddleware, max_bytes=the_engine.settings.api.max_body_bytes)
    app.include_router(health.router)
    app.include_router(heuristics.router)
    app.include_router(decisions.router)
    app.include_router(events.router)
    app.include_router(feedback.router)
    app.include_router(learning.router)
    app.include_router(routing.router)
    app.include_router(admission.router)
    app.include_router(proactive.router)
    return app

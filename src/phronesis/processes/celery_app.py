"""Proactive cycles at scale on Celery (Redis or RabbitMQ broker): ``phronesis worker`` / ``phronesis beat``.

Beat enqueues ``phronesis.proactive.calendars`` (every user's calendar feed polled, as the
embedded scheduler does before each tick) and ``phronesis.proactive.tick`` every
``cycle_minutes``, and ``phronesis.proactive.outbox`` every minute (committed sends whose worker
died before delivering them, or whose channel was down, delivered again). Beat polls calendars
itself because the production guide (docs/production.md) says to switch the embedded scheduler
off at scale: otherwise a Celery deployment would never see a calendar event. The tick sweeps feedback
and splits every tenant's due users into chunks of ``tick_chunk``, one
``phronesis.proactive.cycles`` task each, all carrying the tick's time: a chunk that is
retried, or picked up twice, runs the *same* cycle, and the send claim (unique per user
and cycle, cap re-counted under the user's lock) makes a second delivery impossible.
Tasks are acknowledged late, so a worker that dies mid-chunk hands it to another.

Each worker process keeps one event loop and one ``Engine`` (database pool, LLM client)
for its lifetime, built on its first task.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta
from typing import Any

from celery import Celery
from celery.signals import worker_process_shutdown

from phronesis.exceptions import ConfigurationError
from phronesis.settings import Settings, load_settings
from phronesis.telemetry import configure_tracing

__all__ = ["CALENDARS_TASK", "OUTBOX_TASK", "TICK_TASK", "create_celery", "cycle_time"]

log = logging.getLogger("phronesis.proactive.celery")

TICK_TASK = "phronesis.proactive.tick"
CALENDARS_TASK = "phronesis.proactive.calendars"
CYCLES_TASK = "phronesis.proactive.cycles"
OUTBOX_TASK = "phronesis.proactive.outbox"
OUTBOX_EVERY = timedelta(minutes=1)
"""How often beat has abandoned or failed deliveries tried again (``proactive.outbox``)."""


class _WorkerState:
    """The process's loop and engine (prefork children are single-threaded)."""

    loop: asyncio.AbstractEventLoop | None = None
    engine: Any = None

    @classmethod
    def run(cls, work: Any) -> Any:
        from phronesis.engine import Engine

        if cls.loop is None:
            cls.loop = asyncio.new_event_loop()
        if cls.engine is None:
            engine = Engine(load_settings())
            cls.loop.run_until_complete(engine.start(migrate=False, load_index=False))
            cls.engine = engine
        return cls.loop.run_until_complete(work(cls.engine))

    @classmethod
    def close(cls) -> None:
        if cls.loop is not None and cls.engine is not None:
            cls.loop.run_until_complete(cls.engine.close())
        cls.engine = None


@worker_process_shutdown.connect  # type: ignore[untyped-decorator]
def _close_engine(**_: Any) -> None:
    _WorkerState.close()


def cycle_time(at: datetime, now: datetime, interval: timedelta) -> datetime:
    """When a chunk's cycles run: its tick's time, unless the chunk waited longer than a tick's
    interval in the queue (a backlog, a worker that was down); then now, said in the log. Run at its
    tick's old time, a stale chunk would judge quiet hours, the cap and the cooldown against it and
    record ``sent_at`` in the past. The send claim is per slot, so a chunk run in the current
    slot cannot send twice beside that slot's own chunk."""
    if now - at <= interval:
        return at
    log.warning("a proactive chunk of the %s tick ran %s late: its cycles run at %s", at.isoformat(), now - at, now)
    return now


def create_celery(settings: Settings | None = None) -> Celery:
    settings = settings or load_settings()
    proactive = settings.proactive
    if not proactive.broker_url:
        raise ConfigurationError(
            "PHRONESIS_PROACTIVE__BROKER_URL is not set (e.g. redis://127.0.0.1:6379/0 or amqp://guest@127.0.0.1//)"
        )
    app = Celery("phronesis", broker=proactive.broker_url, set_as_current=False)
    otel = settings.otel
    tracing = configure_tracing(otel.enabled, otel.exporter, otel.service_name)
    if tracing is not None:  # a span per task, the parent of the decisions it makes (before the fork)
        tracing.instrument_celery(app)
    interval = timedelta(minutes=proactive.cycle_minutes)
    app.conf.update(
        task_default_queue=proactive.queue,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_serializer="json",
        accept_content=["json"],
        timezone="UTC",
        broker_connection_retry_on_startup=True,
        beat_schedule={
            name: {
                "task": task,
                "schedule": every.total_seconds(),
                "options": {"expires": every.total_seconds()},
            }
            for name, task, every in (
                ("proactive-calendars", CALENDARS_TASK, interval),
                ("proactive-tick", TICK_TASK, interval),
                ("proactive-outbox", OUTBOX_TASK, min(interval, OUTBOX_EVERY)),
            )
        },
    )

    @app.task(name=TICK_TASK, ignore_result=True)  # type: ignore[untyped-decorator]
    def tick(at: str | None = None) -> int:
        """Plan one tick: sweep feedback and enqueue a task per chunk of due users."""

        async def plan(engine: Any) -> list[tuple[str, list[str]]]:
            now = datetime.fromisoformat(at) if at else engine.clock.now()
            chunks: list[tuple[str, list[str]]] = await engine.proactive.plan_tick(now)
            for tenant, ids in chunks:  # expiring with the tick: a later tick covers them
                cycles.apply_async((tenant, ids, now.isoformat()), expires=interval.total_seconds())
            return chunks

        return len(_WorkerState.run(plan))

    @app.task(name=CALENDARS_TASK, ignore_result=True)  # type: ignore[untyped-decorator]
    def calendars() -> dict[str, int]:
        """Poll every user's calendar feed (a feed that fails is logged and counted, not fatal)."""

        async def poll(engine: Any) -> dict[str, int]:
            counts: dict[str, int] = await engine.proactive.collect_calendars()
            return counts

        result: dict[str, int] = _WorkerState.run(poll)
        return result

    @app.task(name=OUTBOX_TASK, ignore_result=True)  # type: ignore[untyped-decorator]
    def outbox() -> dict[str, int]:
        """Deliver committed sends whose worker died before delivering, or whose channel was down."""

        async def redeliver(engine: Any) -> dict[str, int]:
            counts: dict[str, int] = await engine.proactive.redeliver()
            return counts

        result: dict[str, int] = _WorkerState.run(redeliver)
        return result

    @app.task(name=CYCLES_TASK, ignore_result=True)  # type: ignore[untyped-decorator]
    def cycles(tenant: str, user_ids: list[str], at: str) -> dict[str, int]:
        """One chunk of users through the pre-filter and, for those who pass, their cycle."""

        async def run(engine: Any) -> dict[str, int]:
            now = cycle_time(datetime.fromisoformat(at), engine.clock.now(), interval)
            report = await engine.proactive.tick(tenant, user_ids=user_ids, now=now, sweep=False)
            return dict(report.reasons)

        result: dict[str, int] = _WorkerState.run(run)
        return result

    return app

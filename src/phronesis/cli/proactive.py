"""``phronesis proactive run|users|signals|feedback`` (seed 004), and ``phronesis worker|beat`` (Celery)."""

from __future__ import annotations

from collections.abc import Awaitable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar
from zoneinfo import ZoneInfo

import typer

from phronesis.cli.base import JsonOption, TenantOption, app, emit, fail, parsed, proactive_app, with_engine
from phronesis.exceptions import NotFoundError, PhronesisError
from phronesis.proactive.controls import PauseIn
from phronesis.proactive.fates import state_of
from phronesis.proactive.models import (
    CycleResult,
    MuteIn,
    OptOutIn,
    Preview,
    PreviewIn,
    Signal,
    SignalIn,
    UserIn,
    UserProfile,
)
from phronesis.tenants import DEFAULT_TENANT

if TYPE_CHECKING:
    from phronesis.engine import Engine

users_app = typer.Typer(
    help="Proactive users: list, add or replace, remove; opt out or in, mute or unmute.", no_args_is_help=True
)
signals_app = typer.Typer(help="Signals for users' next cycles: add, list, import a calendar.", no_args_is_help=True)
proactive_app.add_typer(users_app, name="users")
proactive_app.add_typer(signals_app, name="signals")


def _print(value: Any, as_json: bool, line: str) -> None:
    emit(value, as_json, lambda: line)


def _describe(result: CycleResult) -> str:
    if result.decision == "sent":
        return f"{result.user_id}: SENT ({result.category}, score {result.score}, {result.channel}) {result.message}"
    return f"{result.user_id}: silent ({result.reason})" + (f", {result.deferred} deferred" if result.deferred else "")


@proactive_app.command("run")
def run_cycles(
    user: Annotated[str | None, typer.Option("--user", help="One user's cycle (default: every due user).")] = None,
    tenant: TenantOption = DEFAULT_TENANT,
    as_json: JsonOption = False,
) -> None:
    """Run a cycle now: the pre-filter, then candidates, scoring and at most one message per user."""

    async def work(engine: Engine) -> Any:
        if user is not None:
            return await engine.proactive.run_cycle(tenant, user)
        return await engine.proactive.tick(tenant)

    result = with_engine(work)
    if isinstance(result, CycleResult):
        _print(result.model_dump(mode="json"), as_json, _describe(result))
        return
    reasons = ", ".join(f"{reason} {count}" for reason, count in result.reasons.items())
    lines = [
        f"{result.users} due users: {result.sent} sent, {result.llm_calls} LLM calls"
        + (f"; {reasons}" if reasons else "")
    ]
    lines += [_describe(r) for r in result.results]
    _print(result.model_dump(mode="json"), as_json, "\n".join(lines))


@users_app.command("list")
def users_list(tenant: TenantOption = DEFAULT_TENANT, limit: int = 100, as_json: JsonOption = False) -> None:
    """Users with their trust level."""
    page = with_engine(lambda engine: engine.proactive.list_users(tenant, limit=limit))
    users = page.items
    lines = [
        f"{u.id:<16} {u.trust_level:<11} {u.timezone:<20} {u.sleep_time}-{u.wake_time}  {u.channel:<9}"
        + ("  opted out" if u.opted_out else "")
        + (f"  off: {','.join(u.opted_out_categories)}" if u.opted_out_categories else "")
        + (f"  muted until {_local(u.muted_until, u.timezone)}" if u.muted_until else "")
        for u in users
    ]
    _print(page, as_json, "\n".join(lines) or "(no users)")


@users_app.command("put")
def users_put(
    user_id: str,
    timezone: Annotated[str, typer.Option(help="IANA timezone, e.g. Asia/Singapore.")] = "UTC",
    wake: Annotated[str | None, typer.Option(help="Local wake time HH:MM.")] = None,
    sleep: Annotated[str | None, typer.Option(help="Local sleep time HH:MM.")] = None,
    channel: Annotated[str | None, typer.Option(help="console, webhook or whatsapp.")] = None,
    address: Annotated[str | None, typer.Option(help="Phone number or webhook URL.")] = None,
    calendar: Annotated[str | None, typer.Option(help="An iCalendar feed URL to poll.")] = None,
    interactions: Annotated[
        int | None, typer.Option(help="Messages the user has sent so far (default: 0 when new, else unchanged).")
    ] = None,
    created_at: Annotated[
        str | None,
        typer.Option(
            "--created-at",
            help="When the relationship started, ISO 8601 with its offset (trust counts days from it; default: now).",
        ),
    ] = None,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Create or replace a user's profile: an option left out takes its default again; counters,
    opt-outs and a mute are kept."""
    body = parsed(
        UserIn,
        dict(
            timezone=timezone,
            wake_time=wake,
            sleep_time=sleep,
            channel=channel,
            address=address,
            calendar_url=calendar,
            interaction_count=interactions,
            created_at=created_at,
        ),
        flags=_PUT_FLAGS,
    )
    profile, created = with_engine(lambda engine: engine.proactive.put_user(tenant, user_id, body))
    emit(profile, as_json, lambda: f"{'created' if created else 'updated'} {profile.id} ({profile.trust_level})")


T = TypeVar("T")


def _local(at: datetime, timezone: str) -> str:
    """A time as the user lives it: in their zone, with the zone's abbreviation (not UTC,
    unlabelled, for a user in Singapore)."""
    local = at.astimezone(ZoneInfo(timezone))
    return f"{local:%Y-%m-%d %H:%M} {local:%Z}"


async def _with_zone(engine: Engine, tenant: str, user_id: str, work: Awaitable[T]) -> tuple[T, str]:
    """``work``'s result with the user's timezone (UTC when the user is gone)."""
    result = await work
    try:
        return result, (await engine.proactive.user(tenant, user_id)).timezone
    except NotFoundError:
        return result, "UTC"


_PUT_FLAGS = {
    "timezone": "--timezone",
    "wake_time": "--wake",
    "sleep_time": "--sleep",
    "channel": "--channel",
    "address": "--address",
    "calendar_url": "--calendar",
    "interaction_count": "--interactions",
    "created_at": "--created-at",
}
"""``users put``'s options by the profile field each sets (its errors name the option)."""


@users_app.command("delete")
def users_delete(user_id: str, as_json: JsonOption = False, tenant: TenantOption = DEFAULT_TENANT) -> None:
    """Delete a user with their signals, sends and insights."""
    with_engine(lambda engine: engine.proactive.delete_user(tenant, user_id))
    emit({"deleted": user_id}, as_json, lambda: f"deleted {user_id}")


@signals_app.command("add")
def signals_add(
    user_id: str,
    type_: Annotated[str, typer.Option("--type", help="Signal type, e.g. deadline_approaching.")],
    urgency: Annotated[int, typer.Option(help="Urgency hint 1-10.")],
    title: Annotated[str | None, typer.Option(help="What it is about.")] = None,
    when: Annotated[str | None, typer.Option(help="When it happens (ISO 8601 with offset).")] = None,
    context_only: Annotated[
        bool, typer.Option("--context-only", help="Background only: never starts a cycle.")
    ] = False,
    key: Annotated[str | None, typer.Option(help="Dedup key (default: type + data).")] = None,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Add one signal for the user's next cycle."""
    if when is not None:
        try:
            moment = datetime.fromisoformat(when)
        except ValueError:
            raise fail(f"--when: not an ISO 8601 time: {when[:40]!r} (e.g. 2026-11-29T09:00:00+08:00)") from None
        if moment.tzinfo is None:
            raise fail("--when: give the time with its offset, e.g. 2026-11-29T09:00:00+08:00 or 2026-11-29T01:00:00Z")
    data = {k: v for k, v in {"title": title, "due": when}.items() if v is not None}
    signal = parsed(
        SignalIn,
        dict(type=type_, urgency_hint=urgency, data=data, context_only=context_only, dedup_key=key),
        flags={"type": "--type", "urgency_hint": "--urgency", "dedup_key": "--key"},
    )
    added = with_engine(lambda engine: engine.proactive.add_signals(tenant, user_id, [signal]))
    emit(added._asdict(), as_json, lambda: _added(added.stored, added.duplicates, added.updated, ""))


@signals_app.command("list")
def signals_list(
    user_id: str, tenant: TenantOption = DEFAULT_TENANT, pending: bool = False, as_json: JsonOption = False
) -> None:
    """A user's signals, newest first."""
    page, timezone = with_engine(
        lambda engine: _with_zone(
            engine, tenant, user_id, engine.proactive.list_signals(tenant, user_id, pending=pending or None)
        )
    )
    signals = page.items
    now = datetime.now(UTC)
    lines = [
        f"{_local(s.created_at, timezone)}  {s.type:<28} urgency {s.urgency_hint:>2}  "
        f"{state_of(s, now):<15}  {s.data.get('title', '')}" + (f"  ({s.outcome_reason})" if s.outcome_reason else "")
        for s in signals
    ]
    _print(page, as_json, "\n".join(lines) or "(no signals)")


@signals_app.command("import-ics")
def signals_import_ics(
    user_id: str,
    path: Annotated[Path, typer.Argument(help="An iCalendar (.ics) file.")],
    hours: Annotated[float, typer.Option(help="Events starting within this many hours.")] = 24.0,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Calendar events of the next hours as signals (recurring events expanded; re-importing adds nothing).
    Times without a zone and all-day events are read in the user's time zone."""
    if not 0 < hours <= 24 * 366:
        raise fail("--hours must be more than 0 and at most 8784 (a year)")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise fail(f"cannot read {path}: {exc.strerror}") from None

    async def work(engine: Engine) -> tuple[list[Signal], int, int]:
        from phronesis.proactive.sources.icalendar_source import signals_from_ics

        profile = await engine.proactive.user(tenant, user_id)
        signals = signals_from_ics(
            data,
            engine.clock.now(),
            horizon=timedelta(hours=hours),
            zone=ZoneInfo(profile.timezone),
            where=str(path),
            days=engine.settings.proactive.calendar_days,
        )
        if not signals:
            return [], 0, 0
        added = await engine.proactive.add_signals(tenant, user_id, signals)
        return added.stored, added.duplicates, added.updated

    stored, duplicates, updated = with_engine(work)
    said = _added(stored, duplicates, updated, " calendar signals")
    emit({"stored": len(stored), "duplicates": duplicates, "updated": updated}, as_json, lambda: said)


def _added(stored: list[Signal], duplicates: int, updated: int, what: str) -> str:
    """What an add did, e.g. ``stored 0, 2 already known (1 pending one updated)``."""
    said = f"stored {len(stored)}{what}"
    if duplicates:
        said += f", {duplicates} already known" + (
            f" ({updated} pending one{'s' if updated > 1 else ''} updated)" if updated else ""
        )
    return said


CategoryOption = Annotated[
    list[str] | None,
    typer.Option("--category", help="One category (repeat for more; default: every proactive message)."),
]
TopicOption = Annotated[
    list[str] | None,
    typer.Option("--topic", help="A topic word ('weather', 'bill') or a signal type (repeat for more)."),
]


def _opt_state(profile: UserProfile) -> str:
    if profile.opted_out:
        return "opted out of everything"
    named = [*profile.opted_out_categories, *(t for t, until in profile.opted_out_topics.items() if until is None)]
    muted = [f"{t} (until {_local(until, profile.timezone)})" for t, until in profile.opted_out_topics.items() if until]
    parts = (["opted out of " + ", ".join(named)] if named else []) + (["muted " + ", ".join(muted)] if muted else [])
    return "; ".join(parts) or "opted in"


def _controls(profile: UserProfile, as_json: bool) -> None:
    """After an opt-out or opt-in: what the user now gets (and a mute, if one is on)."""
    muted = f"; muted until {_local(profile.muted_until, profile.timezone)}" if profile.muted_until else ""
    emit(profile, as_json, lambda: f"{profile.id}: {_opt_state(profile)}{muted}")


def _mute(profile: UserProfile, as_json: bool) -> None:
    """After a mute or unmute: the mute first (else "opted in" after a mute reads as an opt-in)."""
    muted = f"muted until {_local(profile.muted_until, profile.timezone)}" if profile.muted_until else "not muted"
    state = _opt_state(profile)
    emit(profile, as_json, lambda: f"{profile.id}: {muted}" + (f"; {state}" if state != "opted in" else ""))


_OPT_FLAGS = {"categories": "--category", "topics": "--topic"}
_MUTE_FLAGS = {"until": "--until", "minutes": "--minutes"}


def _categories(categories: list[str] | None, topics: list[str] | None) -> OptOutIn:
    return parsed(OptOutIn, dict(categories=categories or [], topics=topics or []), flags=_OPT_FLAGS)


@users_app.command("opt-out")
def users_opt_out(
    user_id: str,
    category: CategoryOption = None,
    topic: TopicOption = None,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """No more proactive messages for the user (or none of these categories or topics)."""
    body = _categories(category, topic)
    _controls(with_engine(lambda engine: engine.proactive.opt_out(tenant, user_id, body), flags=_OPT_FLAGS), as_json)


@users_app.command("opt-in")
def users_opt_in(
    user_id: str,
    category: CategoryOption = None,
    topic: TopicOption = None,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Undo an opt-out (of everything, or of these categories or topics)."""
    body = _categories(category, topic)
    _controls(with_engine(lambda engine: engine.proactive.opt_in(tenant, user_id, body), flags=_OPT_FLAGS), as_json)


@users_app.command("mute")
def users_mute(
    user_id: str,
    minutes: Annotated[float | None, typer.Option(help="Mute for this many minutes.")] = None,
    until: Annotated[str | None, typer.Option(help="Mute until this time (ISO 8601 with offset).")] = None,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """No proactive message to the user for a while (urgent ones included)."""
    body = parsed(MuteIn, dict(minutes=minutes, until=until), flags=_MUTE_FLAGS)
    _mute(with_engine(lambda engine: engine.proactive.mute(tenant, user_id, body), flags=_MUTE_FLAGS), as_json)


@users_app.command("unmute")
def users_unmute(user_id: str, as_json: JsonOption = False, tenant: TenantOption = DEFAULT_TENANT) -> None:
    """Lift the user's mute."""
    _mute(with_engine(lambda engine: engine.proactive.unmute(tenant, user_id)), as_json)


@proactive_app.command("pause")
def pause(
    reason: Annotated[str | None, typer.Option(help="Why (kept with the pause).")] = None,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Stop every proactive message of the tenant now (the kill switch); resume ends it."""
    body = PauseIn(paused=True, reason=reason)
    state = with_engine(lambda engine: engine.proactive.set_pause(tenant, body))
    emit(state, as_json, lambda: f"proactive messages of {tenant} paused" + (f": {reason}" if reason else ""))


@proactive_app.command("resume")
def resume(as_json: JsonOption = False, tenant: TenantOption = DEFAULT_TENANT) -> None:
    """End a pause: cycles send again from the next one."""
    state = with_engine(lambda engine: engine.proactive.set_pause(tenant, PauseIn(paused=False)))
    emit(state, as_json, lambda: f"proactive messages of {tenant} resumed")


@proactive_app.command("preview")
def preview(
    user_id: str,
    at: Annotated[str | None, typer.Option(help="Decide at this time (ISO 8601 with offset; default now).")] = None,
    llm: Annotated[bool, typer.Option("--llm/--no-llm", help="Let the LLM propose (when one is configured).")] = True,
    tenant: TenantOption = DEFAULT_TENANT,
    as_json: JsonOption = False,
) -> None:
    """What the user's cycle would decide, with nothing written: no signal used, nothing sent."""
    body = parsed(PreviewIn, dict(user_id=user_id, at=at, llm=llm), flags={"at": "--at", "user_id": "USER_ID"})
    result = with_engine(lambda engine: engine.proactive.preview(tenant, body))
    _print(result.model_dump(mode="json"), as_json, "\n".join(_preview_lines(result)))


def _verdict(result: Preview) -> str:
    if result.decision == "would_send":
        return f"WOULD SEND ({result.category}) {result.message}"
    return f"silent ({result.reason})"


def _preview_lines(result: Preview) -> list[str]:
    lines = [
        f"{result.user_id} at {result.at.isoformat()}: {_verdict(result)}",
        f"  trust {result.trust_level}, threshold {result.threshold}, {result.sends_today} sent today",
    ]
    lines += [f"  signal  {s.type} urgency {s.urgency_hint} {s.data.get('title', '')}" for s in result.signals]
    lines += [f"  {c.verdict:<15} {c.score:>5.2f}  {c.category:<16} {c.message}" for c in result.candidates]
    return lines


@proactive_app.command("why")
def why(
    user_id: str,
    days: Annotated[float, typer.Option(help="Events of the last N days.")] = 7,
    tenant: TenantOption = DEFAULT_TENANT,
    as_json: JsonOption = False,
) -> None:
    """Why the user got a message, or did not: a cycle's verdict now with the candidates it scored,
    then their story, newest first."""
    result, timezone = with_engine(
        lambda engine: _with_zone(engine, tenant, user_id, engine.proactive.timeline(tenant, user_id, days=days))
    )
    lines = [f"now: {_verdict(result.now)}", *_preview_lines(result.now)[1:]]
    lines += [
        f"{_local(e.at, timezone)}  {e.kind:<11} {e.summary}" + (f"  [{e.cycle_key}]" if e.cycle_key else "")
        for e in result.events
    ]
    _print(result.model_dump(mode="json"), as_json, "\n".join(lines))


@proactive_app.command("stats")
def stats(
    days: Annotated[int, typer.Option(help="The last N days (UTC).")] = 7,
    tenant: TenantOption = DEFAULT_TENANT,
    as_json: JsonOption = False,
) -> None:
    """Cycles by outcome (sent, every block reason), LLM calls and tokens, deliveries, feedback, per day."""
    result = with_engine(lambda engine: engine.proactive.stats(tenant, days=days))
    lines = [
        f"{day}  " + ", ".join(f"{name} {value}" for name, value in counts.items()) for day, counts in result.items()
    ]
    _print(result, as_json, "\n".join(lines) or "(nothing counted)")


@proactive_app.command("feedback")
def feedback(
    user: Annotated[
        str | None, typer.Option("--user", help="One user's sends (with --summary: their summary).")
    ] = None,
    summary: Annotated[bool, typer.Option("--summary", help="Engagement by category over 30 days.")] = False,
    days: Annotated[int, typer.Option(help="Sends of the last N days.")] = 30,
    tenant: TenantOption = DEFAULT_TENANT,
    as_json: JsonOption = False,
) -> None:
    """Proactive sends and their feedback (pending, engaged, ignored, negative, button_click)."""
    if summary:
        if user is None:
            raise fail("--summary needs --user")
        result = with_engine(lambda engine: engine.proactive.feedback_summary(tenant, user))
        _print(result.model_dump(mode="json"), True, "")
        return
    if days < 1:
        raise fail("--days must be at least 1")
    since = datetime.now(UTC) - timedelta(days=days)
    page = with_engine(lambda engine: engine.proactive.list_feedback(tenant, user_id=user, since=since))
    rows = page.items
    lines = [
        f"{f.sent_at:%Y-%m-%d %H:%M}  {f.user_id:<16} {f.category:<16} {f.outcome:<12} "
        f"{f.delivery_status:<7} {f.message}"
        for f in rows
    ]
    _print(page, as_json, "\n".join(lines) or "(no sends)")


@app.command()
def worker(
    concurrency: Annotated[int, typer.Option(help="Worker processes.")] = 2,
    loglevel: Annotated[str, typer.Option(help="Celery log level.")] = "info",
) -> None:
    """Run proactive cycles from the Celery broker (PHRONESIS_PROACTIVE__BROKER_URL)."""
    from phronesis.processes.celery_app import create_celery

    try:
        celery = create_celery()
    except PhronesisError as exc:
        raise fail(str(exc)) from None
    celery.worker_main(["worker", f"--concurrency={concurrency}", f"--loglevel={loglevel}", "--pool=prefork"])


@app.command()
def beat(loglevel: Annotated[str, typer.Option(help="Celery log level.")] = "info") -> None:
    """Enqueue a proactive tick every cycle (PHRONESIS_PROACTIVE__CYCLE_MINUTES; run exactly one beat)."""
    from phronesis.processes.celery_app import create_celery
    from phronesis.settings import load_settings

    try:
        settings = load_settings()
        celery = create_celery(settings)
    except PhronesisError as exc:
        raise fail(str(exc)) from None
    schedule = settings.resolved_data_dir() / "celerybeat-schedule"
    schedule.parent.mkdir(parents=True, exist_ok=True)
    celery.start(["beat", f"--loglevel={loglevel}", f"--schedule={schedule}"])

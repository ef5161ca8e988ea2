"""Seed 004's decision point as one object the engine, the API, the CLI and the workers share."""

from __future__ import annotations

import logging
import random
import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.audit.repository import DecisionRecordRepository
from phronesis.clock import Clock
from phronesis.embeddings.types import Embedder
from phronesis.exceptions import ConfigurationError, InvalidInputError, NotFoundError
from phronesis.llm.types import LLMProvider
from phronesis.outbound import GuardedTransport, OutboundPolicy
from phronesis.pages import Page
from phronesis.proactive.candidates import CandidateSource
from phronesis.proactive.channels.registry import build_channels
from phronesis.proactive.channels.types import Channel
from phronesis.proactive.controls import PauseIn, PauseState, TenantControls
from phronesis.proactive.counters import CounterRepository
from phronesis.proactive.feedback import FeedbackLoop, ReplyEffect
from phronesis.proactive.insights import InsightRepository
from phronesis.proactive.llm_candidates import LLMCandidates
from phronesis.proactive.models import (
    CATEGORIES,
    CycleResult,
    DeferredInsight,
    FeedbackSummary,
    MuteIn,
    OptOut,
    OptOutIn,
    Preview,
    PreviewIn,
    ProactiveFeedback,
    Signal,
    SignalIn,
    TickReport,
    Timeline,
    UserEventKind,
    UserIn,
    UserMessageIn,
    UserProfile,
    UserReply,
)
from phronesis.proactive.outbox import Outbox
from phronesis.proactive.retention import purge
from phronesis.proactive.sends import SendRepository
from phronesis.proactive.service import ProactiveParts, ProactiveService
from phronesis.proactive.settings import ProactiveSettings
from phronesis.proactive.signals import SignalRepository, SignalsAdded
from phronesis.proactive.sources.icalendar_source import ICalendarSource
from phronesis.proactive.sources.types import SignalSource
from phronesis.proactive.state import StateLoader
from phronesis.proactive.suppression import SuppressionRepository
from phronesis.proactive.templates import type_words
from phronesis.proactive.tick import Ticker
from phronesis.proactive.timeline import timeline_events
from phronesis.proactive.topics import known_topic, topic_covers_type
from phronesis.proactive.user_events import REPLY_TEXT_CHARS, UserEventRepository, opted
from phronesis.proactive.users import UserRepository, opted_out_by
from phronesis.settings_parts import OutboundSettings
from phronesis.storage.database import Database
from phronesis.tuning import TenantValues

__all__ = ["ProactiveModule"]

_PHONE = re.compile(r"\+?[1-9][0-9]{6,14}")
MAX_DAYS = 366
"""The longest look back of a timeline or the stats, in days."""

log = logging.getLogger("phronesis.proactive")


class ProactiveModule:
    def __init__(
        self,
        settings: ProactiveSettings,
        *,
        database: Database,
        llm: LLMProvider | None,
        decisions: DecisionRecordRepository,
        clock: Clock,
        channels: dict[str, Channel] | None = None,
        http: httpx.AsyncClient | None = None,
        outbound: OutboundSettings | None = None,
        tenant_settings: TenantValues | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        if settings.candidates == "llm" and llm is None:
            raise ConfigurationError("PHRONESIS_PROACTIVE__CANDIDATES=llm needs an LLM (PHRONESIS_LLM__SPEC)")
        self.settings = settings
        self._db = database
        self._clock = clock
        self._decisions = decisions
        outbound = outbound or OutboundSettings()
        self.outbound = OutboundPolicy.of(outbound.allow, settings.webhook_url, settings.whatsapp_api_url)
        """Where a user's URLs may lead: checked when they are given and when they are used."""
        self._max_response_bytes = outbound.max_response_bytes
        self._http = http or httpx.AsyncClient(
            timeout=settings.delivery_timeout_sec, follow_redirects=False, transport=GuardedTransport(self.outbound)
        )
        self._owns_http = http is None
        self.users = UserRepository(database, settings, clock)
        self.signals = SignalRepository(database, clock, dedup_window=timedelta(days=settings.signal_dedup_days))
        self.sends = SendRepository(database)
        self.insights = InsightRepository(database)
        self.suppressions = SuppressionRepository(database)
        self.controls = TenantControls(database)
        self.counters = CounterRepository(database)
        self.events = UserEventRepository(database)
        self.feedback = FeedbackLoop(settings, self.sends, self.suppressions, self.users, self.counters)
        generator = None
        if llm is not None and settings.candidates != "templates":
            generator = LLMCandidates(
                llm,
                temperature=settings.temperature,
                max_tokens=settings.max_tokens,
                max_candidates=settings.max_candidates,
            )
        self.channels = channels if channels is not None else build_channels(settings, self._http)
        self.outbox = Outbox(
            settings,
            database=database,
            sends=self.sends,
            users=self.users,
            channels=self.channels,
            decisions=decisions,
            counters=self.counters,
            clock=clock,
        )
        self._templates = CandidateSource(None, max_candidates=settings.max_candidates)
        """Template candidates only: a preview that must not call (or pay) the LLM."""
        runner = ProactiveService(
            settings,
            ProactiveParts(
                database=database,
                users=self.users,
                signals=self.signals,
                sends=self.sends,
                insights=self.insights,
                feedback=self.feedback,
                candidates=CandidateSource(generator, max_candidates=settings.max_candidates),
                decisions=decisions,
                controls=self.controls,
                outbox=self.outbox,
                embedder=embedder,
            ),
            random.Random(settings.seed),
        )
        self.ticker = Ticker(
            settings,
            database=database,
            loader=StateLoader(settings, self.users, self.signals, self.sends, self.controls, tenant_settings),
            signals=self.signals,
            sends=self.sends,
            feedback=self.feedback,
            runner=runner,
            outbox=self.outbox,
            counters=self.counters,
            decisions=decisions,
            clock=clock,
        )

    async def counter_totals(self) -> dict[str, int]:
        """Every tenant's counters summed (sent, deferred, suppressed …): a metric."""
        return await self.counters.totals()

    async def close(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    # users -------------------------------------------------------------------------------
    async def put_user(self, tenant: str, user_id: str, body: UserIn) -> tuple[UserProfile, bool]:
        """Refused (``InvalidInputError``, 422) when a URL in it leads where the server must not go."""
        if body.calendar_url:
            await self.outbound.check("calendar_url", body.calendar_url)
        now = self._clock.now()
        for name in ("created_at", "last_active_at"):  # trust would count days that have not happened
            if (moment := getattr(body, name)) is not None and moment > now:
                raise InvalidInputError(name, "is in the future")
        channel = body.channel or self.settings.channel
        self._check_reachable(channel, body.address)
        if body.address and (channel == "webhook" or "://" in body.address or body.address.strip() != body.address):
            # a webhook's address is a URL the server will post to, however it is spelled
            await self.outbound.check("address", body.address)
        return await self.users.put(tenant, user_id, body)

    def _check_reachable(self, channel: str, address: str | None) -> None:
        """A profile no message could reach is refused when it is given, not found out at the
        first send (where its signals would be used up as ``delivery_failed``)."""
        if channel not in self.channels:
            raise InvalidInputError(
                "channel",
                f"{channel} is not configured on this server (set PHRONESIS_PROACTIVE__WHATSAPP_PHONE_NUMBER_ID "
                "and PHRONESIS_PROACTIVE__WHATSAPP_TOKEN)"
                if channel == "whatsapp"
                else f"{channel} is not configured on this server",
            )
        if channel == "webhook" and not address and not self.settings.webhook_url:
            raise InvalidInputError(
                "address", "a webhook user needs a URL here (no PHRONESIS_PROACTIVE__WEBHOOK_URL is set)"
            )
        if channel == "whatsapp" and not (address and _PHONE.fullmatch(address)):
            raise InvalidInputError("address", "a WhatsApp user needs a phone number in E.164 form, e.g. +6591234567")

    async def user(self, tenant: str, user_id: str) -> UserProfile:
        return await self.users.get(tenant, user_id)

    async def list_users(self, tenant: str, *, limit: int = 100, offset: int = 0) -> Page[UserProfile]:
        return await self.users.page(tenant, limit=limit, offset=offset)

    async def delete_user(self, tenant: str, user_id: str) -> None:
        await self.users.delete(tenant, user_id)

    # signals ------------------------------------------------------------------------------
    async def add_signals(self, tenant: str, user_id: str, signals: Sequence[SignalIn]) -> SignalsAdded:
        return await self.signals.add(tenant, user_id, signals)

    async def list_signals(
        self, tenant: str, user_id: str, *, pending: bool | None = None, limit: int = 100, offset: int = 0
    ) -> Page[Signal]:
        await self.users.get(tenant, user_id)
        return await self.signals.list(tenant, user_id, pending=pending, limit=limit, offset=offset)

    async def collect(self, tenant: str, user_id: str, source: SignalSource) -> SignalsAdded:
        """Pull signals from ``source`` for the user (a known dedup key is not stored twice)."""
        await self.users.get(tenant, user_id)
        signals = await source.collect(self._clock.now())
        return await self.signals.add(tenant, user_id, signals) if signals else SignalsAdded([], 0, 0)

    async def purge(self) -> dict[str, int]:
        """Delete what is done with past ``retention_days`` (``retention``); nothing when it is 0 (off)."""
        days = self.settings.retention_days
        if not days:
            return {}
        return await purge(self._db, self._clock.now(), timedelta(days=days))

    async def collect_calendars(self, tenant: str | None = None) -> dict[str, int]:
        """Poll every user's calendar feed; a feed that fails is logged and counted, not fatal."""
        counts = {"users": 0, "stored": 0, "failed": 0}
        for owner, user_id, url, timezone in await self.users.with_calendars(tenant):
            counts["users"] += 1
            source = ICalendarSource(
                url,
                zone=ZoneInfo(timezone),
                http=self._http,
                max_bytes=self._max_response_bytes,
                days=self.settings.calendar_days,
            )
            try:
                stored = (await self.collect(owner, user_id, source)).stored
            except (InvalidInputError, NotFoundError) as exc:
                log.warning("calendar of %s/%s: %s", owner, user_id, exc)
                counts["failed"] += 1
                continue
            counts["stored"] += len(stored)
        return counts

    # cycles -------------------------------------------------------------------------------
    async def run_cycle(self, tenant: str, user_id: str) -> CycleResult:
        """One user's cycle now (the pre-filter decides first, like the scheduler's)."""
        result = await self.ticker.run_one(tenant, user_id)
        if result is None:
            raise NotFoundError("user", user_id)
        return result

    async def tick(
        self,
        tenant: str | None = None,
        *,
        user_ids: Sequence[str] | None = None,
        now: datetime | None = None,
        sweep: bool = True,
    ) -> TickReport:
        """Every due user's cycle (of ``tenant``, or of every tenant with work)."""
        return await self.ticker.tick(tenant, user_ids=user_ids, now=now, sweep=sweep)

    async def preview(self, tenant: str, body: PreviewIn) -> Preview:
        """What a cycle would decide for the user at ``body.at`` (now by default), with nothing
        written: no signal used, no message sent, no record."""
        at = body.at or self._clock.now()
        source = self._templates if not body.llm else None
        preview = await self.ticker.preview(tenant, body.user_id, at, candidates=source)
        if preview is None:
            raise NotFoundError("user", body.user_id)
        return preview

    async def timeline(self, tenant: str, user_id: str, *, days: float = 7.0, limit: int = 200) -> Timeline:
        """The user's signals, cycles, sends and feedback, newest first, with what a cycle would
        decide now."""
        if not 0 < days <= MAX_DAYS:
            raise InvalidInputError("days", f"must be more than 0 and at most {MAX_DAYS}")
        user = await self.users.get(tenant, user_id)
        now = self._clock.now()
        since = now - timedelta(days=days)
        signals = await self.signals.list(tenant, user_id, pending=None, limit=limit, offset=0)
        records = await self._decisions.query(tenant, kind="proactive", subject_id=user_id, since=since, limit=limit)
        sends = await self.sends.list(
            tenant, user_id=user_id, outcome=None, category=None, since=since, limit=limit, offset=0
        )
        current = await self.preview(tenant, PreviewIn(user_id=user_id, llm=False))
        done = await self.events.for_user(tenant, user_id, since=since, limit=limit)
        events = timeline_events(signals.items, records, sends.items, done, since=since, limit=limit, now=now)
        return Timeline(user=user, now=current, events=events)

    async def stats(self, tenant: str, *, days: int = 7) -> dict[str, dict[str, int]]:
        """The tenant's counters per UTC day (``counters``): cycles by outcome, LLM use, deliveries, feedback."""
        if not 1 <= days <= MAX_DAYS:
            raise InvalidInputError("days", f"must be from 1 to {MAX_DAYS}")
        since = (self._clock.now() - timedelta(days=days - 1)).date()
        return await self.counters.daily(tenant, since)

    async def redeliver(self, tenant: str | None = None) -> dict[str, int]:
        """Deliver the committed sends whose delivery was abandoned or is due again (``outbox``)."""
        return await self.outbox.redeliver(tenant)

    async def plan_tick(self, now: datetime) -> list[tuple[str, list[str]]]:
        """The chunks of a distributed tick (see ``phronesis.processes.celery_app``)."""
        return await self.ticker.plan(now)

    # the reactive side --------------------------------------------------------------------
    async def on_message(self, tenant: str, user_id: str, body: UserMessageIn) -> UserReply:
        """Seed 004 §5–6: a user's message labels pending sends and hands back fresh deferred insights."""
        now = self._clock.now()
        async with self._db.transaction() as conn:
            if not await self.users.record_message(conn, tenant, user_id, now):
                raise NotFoundError("user", user_id)
            effect = await self.feedback.on_reply(
                conn, tenant, user_id, text=body.text, button_id=body.button_id, now=now
            )
            said, details = _reply_summary(body, effect), _reply_details(body, effect)
            await self.events.add(conn, tenant, user_id, "reply", said, now, details)
            switches: tuple[tuple[UserEventKind, OptOut | None], ...] = (
                ("mute" if effect.opted_out is not None and effect.opted_out.until else "opt_out", effect.opted_out),
                ("opt_in", effect.opted_in),
            )
            for kind, switched in switches:
                if switched is not None:
                    said = opted(kind, switched, " by reply")
                    await self.events.add(conn, tenant, user_id, kind, said, now, switched.model_dump(mode="json"))
            controls = (await self.users.lock(conn, tenant, [user_id])).get(user_id)  # row written above
            insights = []
            muted = controls is not None and controls.muted_until is not None and controls.muted_until > now
            if controls is not None and not muted:
                taken = await self.insights.take(conn, tenant, user_id, now, self.settings.insights_per_reply)
                insights = [i for i in taken if not opted_out_by(controls, i.trigger_signals, i.category, now)]
        touched = effect.labelled
        feedback = await self.feedback_for(tenant, user_id, ids=touched) if touched else []
        if effect.opted_out is not None:
            log.info("user %s/%s opted out by reply: %s", tenant, user_id, effect.opted_out.model_dump())
        return UserReply(
            feedback=feedback,
            insights=insights,
            intent=effect.intent,
            opted_out=effect.opted_out,
            opted_in=effect.opted_in,
        )

    # controls -----------------------------------------------------------------------------
    async def _check_topics(self, conn: AsyncConnection, tenant: str, user_id: str, topics: Sequence[str]) -> None:
        """A topic must name something: a word ``topics`` knows (weather, bill, deadline…) or a signal
        type the user has had, or one of its words. Otherwise "xyzzy" would be accepted and stop nothing,
        silently."""
        unknown = [
            (i, topic) for i, topic in enumerate(topics) if not any(map(known_topic, [topic, *type_words(topic)]))
        ]
        if not unknown:
            return
        types = await self.signals.types_of(conn, tenant, user_id)
        for index, topic in unknown:
            if not any(topic_covers_type(topic, type_) for type_ in types):
                raise InvalidInputError(
                    f"topics.{index}",
                    f"{topic!r} names no kind of message: give a topic word (weather, bill, deadline, delivery,"
                    " event…) or a signal type this user has had",
                )

    async def opt_out(self, tenant: str, user_id: str, body: OptOutIn) -> UserProfile:
        """No more proactive messages (``categories`` and ``topics`` empty), or none of these."""
        switched = OptOut(all=not (body.categories or body.topics), categories=body.categories, topics=body.topics)
        async with self._db.transaction() as conn:
            await self._check_topics(conn, tenant, user_id, body.topics)
            if not await self.users.opt_out(conn, tenant, user_id, body.categories, dict.fromkeys(body.topics)):
                raise NotFoundError("user", user_id)
            now = self._clock.now()
            scope = "all" if switched.all else "topic" if body.topics else "category"
            await self.counters.bump(conn, tenant, now, {f"opt_out:{scope}": 1})  # counted like a reply's opt-out
            said = opted("opt_out", switched)
            await self.events.add(conn, tenant, user_id, "opt_out", said, now, switched.model_dump(mode="json"))
            return await self.users.current(conn, tenant, user_id)

    async def opt_in(self, tenant: str, user_id: str, body: OptOutIn) -> UserProfile:
        """Undo an opt-out: of everything (``categories`` and ``topics`` empty: every category, topic
        and mute back too), or of these. Opting in to some while opted out of everything means those
        only: the rest stay off."""
        switched = OptOut(all=not (body.categories or body.topics), categories=body.categories, topics=body.topics)
        async with self._db.transaction() as conn:
            await self._check_topics(conn, tenant, user_id, body.topics)
            if not await self.users.opt_in(conn, tenant, user_id, body.categories, CATEGORIES, body.topics):
                raise NotFoundError("user", user_id)
            said = opted("opt_in", switched)
            now = self._clock.now()
            scope = "all" if switched.all else "topic" if body.topics else "category"
            await self.counters.bump(conn, tenant, now, {f"opt_in:{scope}": 1})  # counted like a reply's opt-in
            await self.feedback.suppressions.lift(conn, tenant, user_id, [*body.categories, *body.topics], now)
            await self.events.add(conn, tenant, user_id, "opt_in", said, now, switched.model_dump(mode="json"))
            return await self.users.current(conn, tenant, user_id)

    async def mute(self, tenant: str, user_id: str, body: MuteIn) -> UserProfile:
        """No proactive message to the user before ``until`` (urgent ones included)."""
        now = self._clock.now()
        until = body.until or now + timedelta(minutes=body.minutes or 0)
        if until <= now:
            raise InvalidInputError("until", f"must be in the future (now is {now.isoformat()})")
        said = f"muted until {until:%Y-%m-%d %H:%M} UTC"
        return await self._set_mute(tenant, user_id, until, "mute", said, {"until": until.isoformat()})

    async def unmute(self, tenant: str, user_id: str) -> UserProfile:
        return await self._set_mute(tenant, user_id, None, "unmute", "mute lifted", {})

    async def _set_mute(
        self,
        tenant: str,
        user_id: str,
        until: datetime | None,
        kind: UserEventKind,
        said: str,
        details: dict[str, Any],
    ) -> UserProfile:
        async with self._db.transaction() as conn:
            if not await self.users.update_controls(conn, tenant, user_id, muted_until=until):
                raise NotFoundError("user", user_id)
            now = self._clock.now()
            if kind == "mute":  # counted like a reply's mute, by API or CLI alike
                await self.counters.bump(conn, tenant, now, {"mute:all": 1})
            await self.events.add(conn, tenant, user_id, kind, said, now, details)
            return await self.users.current(conn, tenant, user_id)

    async def pause(self, tenant: str) -> PauseState:
        return await self.controls.get(tenant)

    async def set_pause(self, tenant: str, body: PauseIn) -> PauseState:
        """The tenant's kill switch: while paused no cycle sends (checked again at each commit)."""
        now = self._clock.now()
        async with self._db.transaction() as conn:
            was = await self.controls.paused(conn, tenant)
            state = await self.controls.set(conn, tenant, body, now)
            if was == body.paused:  # no switch: nothing for the timelines (no repeated resumes)
                return state
            said = ("paused" if body.paused else "resumed") + " for the tenant"
            said += f": {body.reason}" if body.reason else ""
            await self.events.add(
                conn, tenant, None, "pause" if body.paused else "resume", said, now, {"reason": body.reason}
            )
        log.info(
            "proactive messages of tenant %s %s%s",
            tenant,
            "paused" if body.paused else "resumed",
            f": {body.reason}" if body.reason else "",
        )
        return state

    async def feedback_for(self, tenant: str, user_id: str, *, ids: Sequence[str]) -> list[ProactiveFeedback]:
        return await self.sends.by_ids(tenant, user_id, ids)

    async def list_feedback(
        self,
        tenant: str,
        *,
        user_id: str | None = None,
        outcome: str | None = None,
        category: str | None = None,
        since: datetime | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> Page[ProactiveFeedback]:
        return await self.sends.list(
            tenant, user_id=user_id, outcome=outcome, category=category, since=since, limit=limit, offset=offset
        )

    async def feedback_summary(self, tenant: str, user_id: str) -> FeedbackSummary:
        await self.users.get(tenant, user_id)
        async with self._db.connect() as conn:
            return await self.feedback.summary(conn, tenant, user_id, self._clock.now())

    async def list_insights(
        self, tenant: str, user_id: str, *, fresh_only: bool = True, limit: int = 100, offset: int = 0
    ) -> Page[DeferredInsight]:
        await self.users.get(tenant, user_id)
        return await self.insights.list(
            tenant, user_id, fresh_only=fresh_only, now=self._clock.now(), limit=limit, offset=offset
        )


def _reply_summary(body: UserMessageIn, effect: ReplyEffect) -> str:
    what = f"pressed {body.button_id}" if body.button_id else f"wrote {body.text[:80]!r}"
    read = {
        "reply": "a reply",
        "negative": "pushback",
        "opt_out": "a stop",
        "opt_out_category": "a stop for these",
        "opt_out_topic": "a stop for what it named",
        "mute": "a mute",
        "mute_topic": "a mute for what it named",
        "opt_in": "a start",
    }
    return f"{what}: read as {read[effect.intent]}" + (
        f", labelled {len(effect.labelled)} send(s)" if effect.labelled else ""
    )


def _reply_details(body: UserMessageIn, effect: ReplyEffect) -> dict[str, Any]:
    return {
        "text": body.text[:REPLY_TEXT_CHARS],
        "button_id": body.button_id,
        "intent": effect.intent,
        "send_ids": effect.labelled,
        "opted_out": effect.opted_out.model_dump(mode="json") if effect.opted_out is not None else None,
        "opted_in": effect.opted_in.model_dump(mode="json") if effect.opted_in is not None else None,
    }

"""Seed 004's data at the boundary: users, signals, candidates, cycle results, feedback, insights.

Everything a caller sends is validated here (field names in errors come from these
models); everything the LLM sends is validated into ``Candidate`` before it is scored.
"""

from __future__ import annotations

from datetime import datetime, time
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from pydantic import ConfigDict, Field, field_validator, model_validator

from phronesis.clock import AwareInstant
from phronesis.json_values import JsonObject
from phronesis.schema import Schema

__all__ = [
    "ACTION_TYPES",
    "BLOCK_REASONS",
    "CATEGORIES",
    "BlockReason",
    "Candidate",
    "CycleResult",
    "DeferredInsight",
    "FeedbackOutcome",
    "FeedbackSummary",
    "ProactiveFeedback",
    "Signal",
    "SignalIn",
    "TickReport",
    "TrustLevel",
    "UserIn",
    "UserMessageIn",
    "UserProfile",
    "UserEventKind",
    "UserReply",
]

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:@-]{0,63}$"
CLOCK_PATTERN = r"^([01]\d|2[0-3]):[0-5]\d$"

TrustLevel = Literal["new", "building", "established", "deep"]
TRUST_ORDER: tuple[TrustLevel, ...] = ("new", "building", "established", "deep")

CATEGORIES = (
    "deadline_warning",
    "schedule_info",
    "task_reminder",
    "wellbeing",
    "social",
    "nudge",
    "briefing",
    "memory_recall",
    "grade_alert",
    "email_alert",
    "habit",
)
"""The original's candidate categories (ORIGINS §4); an unknown one from the LLM becomes ``nudge``."""
ACTION_TYPES = ("text", "button_prompt")

BlockReason = Literal[
    "paused",
    "opted_out",
    "muted",
    "no_signals",
    "context_only",
    "low_urgency",
    "quiet_hours",
    "daily_cap",
    "cooldown",
    "no_candidates",
    "below_threshold",
    "duplicate",
    "suppressed",
    "already_sent",
    "delivery_failed",
]
BLOCK_REASONS: tuple[str, ...] = BlockReason.__args__  # type: ignore[attr-defined]

BUTTONS: tuple[dict[str, str], ...] = ({"id": "btn_yes", "title": "Yes"}, {"id": "btn_later", "title": "Later"})
"""The reply buttons of a ``button_prompt``, on every channel; a reply names the one pressed by its id."""
BUTTON_IDS = frozenset(b["id"] for b in BUTTONS)

UserEventKind = Literal["reply", "opt_out", "opt_in", "mute", "unmute", "pause", "resume"]
"""What a user or their tenant did about proactive messages (``user_events``), on the timeline."""

FeedbackOutcome = Literal["pending", "engaged", "ignored", "negative", "button_click"]
ENGAGED_OUTCOMES = frozenset({"engaged", "button_click"})


def _timezone(value: str) -> str:
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown IANA timezone {value[:64]!r}") from None
    if value not in available_timezones() and value != "UTC":
        raise ValueError(f"unknown IANA timezone {value[:64]!r}")
    return value


class UserIn(Schema):
    """A user as an agent registers or updates them.

    PUT replaces the profile: a field left out takes its default again (``timezone`` UTC, the
    settings' quiet hours and channel, no address, calendar or patterns), so send the whole
    profile. What the server counts and what the user asked for are kept unless named here:
    ``created_at``, ``interaction_count`` and ``last_active_at``; opt-outs and a mute (changed only
    through ``…/opt-out``, ``…/opt-in`` and ``…/mute``); the signal types learned as ignored."""

    model_config = ConfigDict(extra="forbid")

    timezone: str = Field(default="UTC", max_length=64)
    """The user's IANA time zone (e.g. ``Europe/Paris``); quiet hours and the daily cap's day are reckoned in it."""
    wake_time: str | None = Field(default=None, pattern=CLOCK_PATTERN)
    """Local HH:MM; quiet hours run from ``sleep_time`` to ``wake_time``. None: the settings' default."""
    sleep_time: str | None = Field(default=None, pattern=CLOCK_PATTERN)
    """Local HH:MM when quiet hours start (until ``wake_time`` only urgent signals get through). None: the settings'
    default."""
    created_at: AwareInstant | None = None
    """When the relationship started (trust counts days from it). None: now."""
    # at most what the database column holds: a larger number was a 500 from the database
    interaction_count: int | None = Field(default=None, ge=0, le=2**31 - 1, strict=True)
    """Messages the user has sent so far (trust counts them); each ``POST …/messages`` adds one.
    At most 2147483647.
    None: 0 for a new user, unchanged for a known one (an update never resets what was counted)."""
    last_active_at: AwareInstant | None = None
    """None: unchanged for a known user (replies keep it current)."""
    channel: Literal["console", "webhook", "whatsapp"] | None = None
    """How messages reach the user: ``console`` (written to the server's log), ``webhook`` (an HTTP POST to ``address``)
    or ``whatsapp`` (the WhatsApp Cloud API, to the number in ``address``). None: the server's default channel."""
    address: str | None = Field(default=None, max_length=512)
    """Where the channel delivers: a phone number (WhatsApp) or a URL (webhook; default the settings' URL)."""
    calendar_url: str | None = Field(default=None, max_length=2048, pattern=r"(?i)^https?://\S+$")
    """An iCalendar feed (http/https) polled for ``calendar_event_approaching`` signals."""
    ignored_signal_types: list[str] = Field(default_factory=list, max_length=50)
    """Signal types the user tends to ignore: they need ``ignored_type_penalty`` more urgency."""
    patterns: list[str] = Field(default_factory=list, max_length=20)
    """Behavioural patterns the agent learned about the user (e.g. "studies late on Sundays")."""

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        return _timezone(value)

    @field_validator("patterns", "ignored_signal_types")
    @classmethod
    def _bounded_items(cls, values: list[str]) -> list[str]:
        for value in values:
            if not value.strip() or len(value) > 300:
                raise ValueError("items must be non-empty and at most 300 characters")
        return values


class UserProfile(Schema):
    id: str
    """The user's id, chosen by the caller (the ``user_id`` in the path)."""
    timezone: str
    """The user's IANA time zone; quiet hours and the daily cap's day are reckoned in it."""
    wake_time: str
    """Local HH:MM when the user's quiet hours end."""
    sleep_time: str
    """Local HH:MM when the user's quiet hours start (until ``wake_time`` only urgent signals get through)."""
    created_at: datetime
    """When the relationship started (UTC); trust counts days from it."""
    interaction_count: int
    """Messages the user has sent so far (trust counts them); each ``POST …/messages`` adds one."""
    last_active_at: datetime | None
    """When the user was last active: their last message, or what the caller set. Trust steps down after a long
    inactivity (30 and 60 days by default). None: not known."""
    last_user_message_at: datetime | None
    """When the user last wrote (``POST …/messages``), set by the server. WhatsApp sends free text or buttons only
    within 24 hours of it, an approved template otherwise. None: never."""
    channel: str
    """How messages reach the user: ``console``, ``webhook`` or ``whatsapp``."""
    address: str | None
    """Where the channel delivers: a phone number (WhatsApp) or a URL (webhook). None: the webhook channel uses the
    server's URL."""
    calendar_url: str | None
    """An iCalendar feed (http/https) polled for ``calendar_event_approaching`` signals. None: no feed."""
    ignored_signal_types: list[str]
    """Signal types the caller says the user tends to ignore: they need more urgency to start a cycle."""
    learned_ignored_types: list[str]
    """Signal types this user's feedback shows they ignore (kept apart from the caller's list)."""
    patterns: list[str]
    """Behavioural patterns the agent learned about the user, shown to the LLM when it drafts messages."""
    trust_level: TrustLevel
    """How much proactive behaviour the relationship has earned, worked out when the profile is read: ``new``,
    ``building``, ``established`` or ``deep``, from the days since ``created_at`` and ``interaction_count`` (lower after
    a long inactivity). Each level has its own minimum urgency, score threshold and daily cap."""
    opted_out: bool = False
    """The user asked for no proactive messages at all (by the API or in a reply)."""
    opted_out_categories: list[str] = Field(default_factory=list)
    """Categories the user asked not to get (the rest still may be sent)."""
    muted_until: datetime | None = None
    """No proactive message before this time, urgent or not."""
    opted_out_topics: dict[str, datetime | None] = Field(default_factory=dict)
    """Topics the user stopped ("weather", ``bill_due``), each with its mute's end (None: until they opt back in).
    A topic stops every signal type of its kind, urgent ones too, and nothing else."""
    opted_in_topics: list[str] = Field(default_factory=list)
    """Topics the user asked for again while everything else (``opted_out``) or their category stays off: "start
    sending me weather again" after "stop" lets weather alerts through, and nothing else."""

    def wake(self) -> time:
        return time.fromisoformat(self.wake_time)

    def sleep(self) -> time:
        return time.fromisoformat(self.sleep_time)


class SignalIn(Schema):
    """Something the agent noticed that might be worth a message to the user."""

    model_config = ConfigDict(extra="forbid")

    type: str = Field(min_length=1, max_length=64, pattern=r"^[a-z0-9_.:-]+$")
    """What kind of thing was noticed, in lower case (e.g. ``deadline_approaching``); a template message's category is
    guessed from it."""
    urgency_hint: int = Field(ge=1, le=10, strict=True)
    """How urgent the source thinks this is, 1 (can wait) to 10 (now). From 8 (by default) a signal gets through quiet
    hours and the cooldown, never the daily cap."""
    data: JsonObject = Field(default_factory=dict)
    """The details, a JSON object of at most 8000 characters. A ``title`` (or ``summary``) and a time in ``start``,
    ``due`` or ``when`` make the best messages; the LLM reads it as data, never as instructions."""
    context_only: bool = Field(default=False, strict=True)
    """Background for the LLM (e.g. the weather); context-only signals alone never start a cycle."""
    dedup_key: str | None = Field(default=None, min_length=1, max_length=256)
    """The same key again for the same user is not stored twice: while the first signal is unused it takes the new
    urgency, data, ``context_only`` and expiry (a source polled again updates it); once used, the key is refused until
    7 days (by default) after that signal was stored. None: type + data."""
    expires_at: AwareInstant | None = None
    """After it the signal is ignored. None: one day after it arrives."""

    @field_validator("data")
    @classmethod
    def _bounded_data(cls, value: dict[str, Any]) -> dict[str, Any]:
        import json

        if len(json.dumps(value, default=str)) > 8000:
            raise ValueError("data must serialise to at most 8000 characters")
        return value


SignalOutcome = Literal[
    "sent",
    "folded",
    "deferred",
    "duplicate",
    "suppressed",
    "opted_out",
    "below_threshold",
    "no_candidate",
    "context",
    "expired",
]
"""What a signal became when a cycle used it (``proactive.fates``)."""


class Signal(Schema):
    id: str
    """The signal's id, assigned by the server."""
    user_id: str
    """The user the signal is about."""
    type: str
    """What kind of thing was noticed (e.g. ``deadline_approaching``)."""
    urgency_hint: int
    """How urgent the source thinks this is, 1 (can wait) to 10 (now)."""
    data: dict[str, Any]
    """The details the source gave (a JSON object)."""
    context_only: bool
    """Background for the LLM only: it never starts a cycle on its own."""
    dedup_key: str
    """The key that keeps the signal from being stored twice: the caller's, else the type and a hash of the data."""
    created_at: datetime
    """When the server stored it (UTC)."""
    expires_at: datetime
    """After this time the signal is ignored, used or not."""
    consumed_at: datetime | None = None
    """When a cycle that got past the pre-filter used it (a blocked cycle leaves it waiting). None: not used yet."""
    cycle_key: str | None = None
    """The cycle that used it."""
    outcome: SignalOutcome | None = None
    """What it became when a cycle used it: ``sent`` or ``folded`` (in message ``outcome_ref``), ``deferred`` (as
    insight ``outcome_ref``), ``duplicate``, ``suppressed``, ``opted_out``, ``below_threshold``, ``no_candidate``,
    ``context`` or ``expired`` (an event whose moment passed before a message told it). None: not used (pending, or
    expired once ``expires_at`` passed)."""
    outcome_reason: str | None = None
    """Why, for a person: which message, which insight until when, which rule. While it is pending: why it waits
    (the last thing that held it: quiet hours, the daily cap, a wait for the user's wake…)."""
    outcome_ref: str | None = None
    """The send, the deferred insight or the decision record it ended in."""
    retry_at: datetime | None = None
    """A signal deferred at night whose moment comes after the user wakes is not used up: it waits, pending, and is
    considered again at this time (the user's wake); ``outcome_reason`` says why. None: no wait."""

    def describe(self) -> str:
        """One line for prompts and templates: the type and its most telling fields."""
        title = self.data.get("title") or self.data.get("summary") or self.data.get("name") or ""
        when = self.data.get("when") or self.data.get("start") or self.data.get("due") or ""
        parts = [self.type.replace("_", " ")]
        if title:
            parts.append(str(title)[:200])
        if when:
            parts.append(f"at {str(when)[:40]}")
        return ": ".join(parts[:2]) + (f" {parts[2]}" if len(parts) > 2 else "")


def _clamped_score(value: Any) -> Any:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return min(10.0, max(1.0, float(value)))
    return value


class Candidate(Schema):
    """One possible message (seed 004 §7 and ORIGINS §4's JSON schema, with its defaults)."""

    model_config = ConfigDict(extra="ignore")

    message: str = Field(min_length=1, max_length=1000)
    """The message to send, 1 to 1000 characters."""
    category: str = "nudge"
    """One of the known categories (``deadline_warning``, ``schedule_info``, ``nudge``…); an unknown one becomes
    ``nudge``."""
    relevance: float = 5.0
    """How much this matters to the user now, 1 to 10 (a number outside is clamped)."""
    timing: float = 5.0
    """How good a moment this is to say it, 1 to 10 (10: now or never; a number outside is clamped)."""
    urgency: float = 5.0
    """How time-critical it is, 1 to 10 (a number outside is clamped)."""
    trigger_signals: list[str] = Field(default_factory=list, max_length=20)
    """The types of the signals the message is about."""
    action_type: Literal["text", "button_prompt"] = "text"
    """``text``, or ``button_prompt`` for a message that invites a yes/no answer; anything else becomes ``text``."""
    subject: str | None = Field(default=None, max_length=300)
    """What the message is about. When given, the repeat check compares it instead of the whole
    message: two template messages share their template's words but not their subject."""

    @field_validator("relevance", "timing", "urgency", mode="before")
    @classmethod
    def _one_to_ten(cls, value: Any) -> Any:
        return _clamped_score(value)

    @field_validator("category", mode="before")
    @classmethod
    def _known_category(cls, value: Any) -> Any:
        return value if value in CATEGORIES else "nudge"

    @field_validator("action_type", mode="before")
    @classmethod
    def _known_action(cls, value: Any) -> Any:
        return value if value in ACTION_TYPES else "text"


class CycleResult(Schema):
    """What one user's cycle decided, and why (the decision record says the same)."""

    user_id: str
    """The user the cycle was for."""
    cycle_key: str
    """The scheduler slot the cycle ran in (one every 5 minutes by default): a user gets at most one message per slot,
    however often a cycle runs in it."""
    decision: Literal["sent", "silent"]
    """``sent``: a message was committed for delivery (``delivery`` says how it went); ``silent``: nothing went out."""
    reason: BlockReason | Literal["sent", "explored"]
    """Why: ``sent``; ``explored`` (a candidate just below the threshold, sent by random exploration); or the rule that
    kept the cycle silent (e.g. ``quiet_hours``, ``daily_cap``, ``below_threshold``, ``delivery_failed``)."""
    trust_level: TrustLevel | None = None
    """The user's trust level when the cycle ran (it sets the minimum urgency, the threshold and the daily cap)."""
    llm_called: bool = False
    """True when the cycle asked the LLM for candidates (even if its answer was unusable and templates stood in)."""
    message: str | None = None
    """The chosen message's text. None: no message was chosen."""
    category: str | None = None
    """The chosen message's category (e.g. ``deadline_warning``). None: no message was chosen."""
    action_type: str | None = None
    """``text``, or ``button_prompt`` for a yes/no question (the chosen message's). None: no message was chosen."""
    score: float | None = None
    """The chosen message's composite score, 0 to 10; for a silent cycle, the best candidate's. None: no candidate was
    scored."""
    threshold: float | None = None
    """The score a candidate needed at the user's trust level, 0 to 10. None: the pre-filter stopped the cycle, or it
    had already run in this slot."""
    probability: float | None = None
    """The probability this send decision had (exploration is random): for off-policy evaluation."""
    send_id: str | None = None
    """The send's id (the ``id`` of its feedback entry, and the channel's idempotency key). Set whenever a message was
    committed, even if its delivery then failed; None otherwise."""
    channel: str | None = None
    """The channel the message went through: ``console``, ``webhook`` or ``whatsapp``. None: no message was chosen."""
    delivery: str | None = None
    """How the delivery went: the format the message went out in when delivered (``text``, ``buttons`` or ``template``
    on WhatsApp, ``webhook``, ``log`` on the console), ``retrying`` when it will be tried again, or ``failed``. None:
    nothing to deliver."""
    deferred: int = 0
    """Borderline candidates kept as deferred insights."""
    signals: list[str] = Field(default_factory=list)
    """The types of the signals the cycle read, one entry per signal. Empty when the pre-filter stopped it."""
    decision_id: str | None = None
    """The cycle's decision record (``GET /v1/decisions/{id}``). None: the pre-filter stopped the cycle, or it had
    already run in this slot."""
    prompt_tokens: int | None = None
    """Prompt tokens of this cycle's LLM call (None: no call, or the provider did not say)."""
    completion_tokens: int | None = None
    """Tokens of this cycle's LLM call (None: no call, or the provider did not say)."""


class DeferredInsight(Schema):
    id: str
    """The insight's id, assigned by the server."""
    user_id: str
    """The user the insight is for."""
    category: str
    """The candidate's category (e.g. ``deadline_warning``)."""
    message_draft: str
    """The candidate message as drafted, never sent: something to work into the agent's next reply."""
    trigger_signals: list[str]
    """The types of the signals the candidate was about."""
    relevance_score: float
    """The candidate's composite score, 0 to 10: below the threshold it needed, at least 4 by default."""
    created_at: datetime
    """When the cycle kept it (UTC)."""
    expires_at: datetime
    """After this time the insight is no longer handed out (24 hours after ``created_at`` by default)."""
    used: bool
    """True once it was handed to the agent with a user's message (each insight is handed out once)."""


class ProactiveFeedback(Schema):
    id: str
    """The send's id (a cycle's ``send_id``); channels get it as the idempotency key."""
    user_id: str
    """The user the message was sent to."""
    message: str
    """The text sent."""
    category: str
    """The message's category (e.g. ``deadline_warning``)."""
    trigger_signals: list[str]
    """The types of the signals the message was about."""
    action_type: str
    """``text``, or ``button_prompt`` (a yes/no question; WhatsApp shows Yes and Later buttons)."""
    channel: str
    """The channel it went through: ``console``, ``webhook`` or ``whatsapp``."""
    delivery_status: str
    """``sending`` (being delivered, or waiting for a retry), ``sent`` (the channel took it) or ``failed`` (given up; it
    does not count toward the daily cap)."""
    sent_at: datetime
    """When the cycle committed the send (UTC), or, for a message delivered on a later attempt, when that attempt
    succeeded. The daily cap, the cooldown and the reply latency count from it."""
    outcome: FeedbackOutcome
    """How the user reacted: ``pending`` (not yet known), ``engaged`` (replied), ``button_click`` (pressed a button of
    the prompt), ``negative`` (pushed back or asked to stop) or ``ignored`` (no reply within 180 minutes by default)."""
    response_latency_seconds: float | None
    """Seconds from ``sent_at`` to the reply that labelled it. None: no reply (pending or ignored)."""
    score: float | None
    """The message's composite score when it was chosen, 0 to 10. None: not recorded."""
    probability: float | None
    """The probability the decision to send it had (1 unless random exploration sent it): for off-policy evaluation.
    None: not recorded."""
    outcome_at: datetime | None = None
    """When the outcome was set (UTC). None: still pending."""
    attempts: int = 0
    """Deliveries tried (the outbox retries a channel that was down, or a worker that died)."""
    delivery_detail: str | None = None
    """What the channel said last (e.g. ``HTTP 200``), or why the delivery failed. None: no answer yet."""
    decision_id: str | None = None
    """The decision record of the cycle that sent it (``GET /v1/decisions/{id}``)."""


class PreviewIn(Schema):
    """What would happen in a user's cycle (``POST /v1/proactive/preview``): nothing is written."""

    model_config = ConfigDict(extra="forbid")

    user_id: str = Field(min_length=1, max_length=64, pattern=ID_PATTERN)
    """The user whose cycle to preview."""
    at: AwareInstant | None = None
    """The time to decide at (quiet hours, cap, cooldown, signal expiry). None: now."""
    llm: bool = Field(default=True, strict=True)
    """False: template candidates even when an LLM is configured (no LLM call, no cost)."""


class CandidatePreview(Schema):
    message: str
    """The candidate's text."""
    category: str
    """The candidate's category (e.g. ``deadline_warning``)."""
    action_type: str
    """``text``, or ``button_prompt`` for a yes/no question."""
    score: float
    """Its composite score, 0 to 10 (the tenant's weights of relevance, timing and urgency)."""
    verdict: str
    """approved, deferred, below_threshold, duplicate, suppressed or opted_out. A preview draws no
    exploration: a candidate in the exploration band shows ``deferred`` with the chance it had."""
    probability: float
    """The chance of this verdict given the score: 1, except for ``deferred`` in the exploration band, which had 1 minus
    the exploration rate."""


class Preview(Schema):
    """A cycle decided without its effects: no signal used, no message sent, no record written."""

    user_id: str
    """The user previewed."""
    at: datetime
    """The time the preview decided at (UTC)."""
    decision: Literal["would_send", "silent"]
    """``would_send``: a cycle would send ``message``; ``silent``: it would send nothing."""
    reason: str
    """Why: a block reason (the pre-filter's or the cycle's), or ``sent``."""
    trust_level: TrustLevel
    """The user's trust level at ``at`` (it sets the minimum urgency, the threshold and the daily cap)."""
    threshold: float
    """The score a candidate needs at the user's trust level, 0 to 10."""
    sends_today: int
    """Proactive messages sent to the user today up to ``at``, as the daily cap counts them."""
    signals: list[Signal]
    """The signals the cycle would read (the pre-filter's choice); empty when it blocked."""
    candidates: list[CandidatePreview] = Field(default_factory=list)
    """Every candidate with its score and verdict, sendable ones first, then by score. Empty when the cycle would stop
    before candidates."""
    message: str | None = None
    """The message that would be sent. None: silent."""
    category: str | None = None
    """The category of the message that would be sent. None: silent."""
    llm_called: bool = False
    """True when the preview asked the LLM for candidates (a real, paid call); false with ``llm`` false or no LLM
    configured."""
    fallback_reason: str | None = None
    """Why the LLM's answer could not be used and template candidates stood in. None: no fallback."""


class TimelineEvent(Schema):
    at: datetime
    """When it happened (UTC)."""
    kind: Literal["signal", "signal_used", "signal_expired", "cycle", "send", "feedback", UserEventKind]
    """``signal`` (stored), ``signal_used`` (a cycle used it: what it became and why, e.g. sent in a message,
    deferred as an insight, a duplicate), ``signal_expired`` (it reached its expiry unused), ``cycle`` (a cycle's
    decision, or a pre-filter block when those are recorded), ``send`` (a message and its delivery), ``feedback`` (how
    the send was labelled), ``reply`` (what the user wrote and how it was read), ``opt_out``/``opt_in``,
    ``mute``/``unmute`` (by the user, a reply or the API) and ``pause``/``resume`` (the whole tenant's kill switch)."""
    summary: str
    """One line for a person, e.g. ``deadline_approaching (urgency 8): Lab 4``."""
    cycle_key: str | None = None
    """Links a used signal, the cycle that used it and its send."""
    ids: dict[str, str] = Field(default_factory=dict)
    """signal_id, decision_id, send_id: what the event is, for a closer look."""
    details: dict[str, Any] = Field(default_factory=dict)
    """More, by kind: a signal's expiry and ``context_only``; a cycle's path, trust, threshold, candidates and delivery;
    a send's message, score and delivery detail; a reply's text (up to 280 characters), intent and labelled sends; an
    opt-out's categories; a mute's end; a pause's reason."""


class Timeline(Schema):
    """A user's proactive story, newest first, and what a cycle would decide now."""

    user: UserProfile
    """The user's profile now."""
    now: Preview
    """What a cycle would decide now, with template candidates (no LLM call)."""
    events: list[TimelineEvent]
    """What happened in the last ``days`` (7 by default), newest first, at most ``limit``."""


class FeedbackSummary(Schema):
    total_sent: int
    """Messages delivered to the user in the last 30 days (by default)."""
    engaged: int
    """Of those, the ones the user replied to or answered with a button."""
    ignored: int
    """Of those, the ones with no reply within the ignore timeout (180 minutes by default)."""
    negative: int
    """Of those, the ones the user pushed back on or asked to stop."""
    pending: int
    """Of those, the ones whose outcome is not known yet."""
    engagement_rate: float | None
    """``engaged`` / ``total_sent``, 0 to 1 (pending ones count as not engaged). None: nothing sent."""
    engagement_by_category: dict[str, float]
    """The engagement rate (0 to 1) of each category sent."""
    avg_response_latency_seconds: float | None
    """Mean seconds from a send to the reply that engaged with it. None: no engaged reply."""
    late_replies: int = 0
    """Engaged replies that came after the engagement window (still before the ignore timeout)."""
    suppressed_categories: list[str]
    """Categories switched off because the user kept ignoring them or pushed back; one comes back on probation later (21
    days by default). Only messages no signal type stood behind count for a category."""
    suppressed_types: list[str] = Field(default_factory=list)
    """Signal types switched off the same way: ignoring one type never switches off another (urgent messages, urgency 8
    and up, are never held back by this)."""


class UserMessageIn(Schema):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(default="", max_length=8000)
    """What the user wrote (may be empty when ``button_id`` is given). "stop", "unsubscribe" or "not helpful" are read
    as an opt-out or as pushback."""
    button_id: str | None = Field(default=None, max_length=64)
    """The id of a button the user pressed on a button prompt (a ``button_click``): ``btn_yes`` or ``btn_later``."""

    @field_validator("button_id")
    @classmethod
    def _offered(cls, value: str | None) -> str | None:
        if value is not None and value not in BUTTON_IDS:
            raise ValueError(f"not a button phronesis offers ({', '.join(sorted(BUTTON_IDS))})")
        return value

    @model_validator(mode="after")
    def _something(self) -> UserMessageIn:
        if not self.text.strip() and self.button_id is None:
            raise ValueError("give the user's text or the button_id they pressed")
        return self


class OptOut(Schema):
    """What a stop (or a start) switched: everything, some categories or some topics, for good or
    until a time."""

    all: bool
    """True: every proactive message (an opt-out, a mute or an opt-in of everything)."""
    categories: list[str] = Field(default_factory=list)
    """Otherwise the categories switched."""
    topics: list[str] = Field(default_factory=list)
    """And the topics switched: words the user named ("weather", "bill") or signal types
    (``weather_alert``); a topic covers every signal type of that kind."""
    until: datetime | None = None
    """A mute's end; None: until the user opts back in."""


TOPIC_PATTERN = r"^[a-z][a-z0-9_.-]{1,63}$"


class OptOutIn(Schema):
    model_config = ConfigDict(extra="forbid")

    categories: list[str] = Field(default_factory=list, max_length=len(CATEGORIES))
    """Categories to switch. Empty, with no ``topics`` either: everything (an opt-out of all
    messages; an opt-in back to all of them)."""
    topics: list[Annotated[str, Field(pattern=TOPIC_PATTERN)]] = Field(default_factory=list, max_length=20)
    """Topics to switch: a word ("weather", "bill": every signal type of that kind) or a signal
    type (``weather_alert``), lower case. A topic never covers a signal of another kind."""

    @field_validator("categories")
    @classmethod
    def _known(cls, values: list[str]) -> list[str]:
        unknown = [v for v in values if v not in CATEGORIES]
        if unknown:
            raise ValueError(f"no such category: {', '.join(unknown[:5])} (known: {', '.join(CATEGORIES)})")
        return sorted(set(values))

    @field_validator("topics")
    @classmethod
    def _distinct(cls, values: list[str]) -> list[str]:
        return sorted(set(values))


class MuteIn(Schema):
    model_config = ConfigDict(extra="forbid")

    until: AwareInstant | None = None
    """When the mute ends: a time with its UTC offset, in the future."""
    minutes: float | None = Field(default=None, gt=0, le=60 * 24 * 366, strict=True)
    """Give one: a time, or minutes from now."""

    @model_validator(mode="after")
    def _one(self) -> MuteIn:
        if (self.until is None) == (self.minutes is None):
            raise ValueError("give exactly one of until and minutes")
        return self


class UserReply(Schema):
    """What the agent gets back when a user writes: the feedback it caused and insights to weave in."""

    feedback: list[ProactiveFeedback]
    """The sends this message labelled, with their new outcome (engaged, button_click or negative; ignored for those
    past the timeout)."""
    insights: list[DeferredInsight]
    """Fresh deferred insights to weave into the reply, best first (up to 3 by default), now marked used. Empty for a
    user opted out of everything; never one of a category the user opted out of."""
    intent: Literal[
        "opt_out", "opt_out_topic", "opt_out_category", "mute", "mute_topic", "opt_in", "negative", "reply"
    ] = "reply"
    """How the reply was read: ``opt_out`` (no more proactive messages), ``opt_out_topic`` (none
    about what it named: "unsubscribe from weather"), ``opt_out_category`` (none like the one
    answered), ``mute`` / ``mute_topic`` (the same for a while: "no weather for a week"),
    ``opt_in`` (back on: "don't stop reminding me about deadlines"), ``negative`` (pushback that
    is not a request to stop) or ``reply`` (anything else)."""
    opted_out: OptOut | None = None
    """Set when the reply asked to stop: tell the user what was switched off, and until when."""
    opted_in: OptOut | None = None
    """Set when the reply asked to start again: what was switched back on."""


class TickReport(Schema):
    """One pass of the scheduler over every due user (or the ones asked for)."""

    cycle_key: str
    """The scheduler slot of this tick (one every 5 minutes by default)."""
    tenants: int
    """How many tenants the tick went over."""
    users: int
    """Users with a live concrete signal that the pre-filter looked at."""
    reasons: dict[str, int]
    """How many cycles ended each way: sent, explored, and every block reason."""
    sent: int
    """Cycles that sent a message (``sent`` plus ``explored``; a failed delivery is not counted)."""
    llm_calls: int
    """Cycles that called the LLM."""
    decided_without_llm: float | None
    """Share of cycles that never reached the LLM, 0 to 1; None when no cycle ran."""
    feedback_expired: int
    """Pending sends marked ignored by this tick (no reply after the ignore timeout)."""
    redelivered: dict[str, int] = Field(default_factory=dict)
    """Committed sends the outbox delivered again (a worker died, the channel was down), by how each ended."""
    elapsed_ms: float
    """How long the tick took, in milliseconds."""
    results: list[CycleResult]
    """The cycles that got past the pre-filter (at most ``max_results``)."""

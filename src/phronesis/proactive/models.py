"""Seed 004's data at the boundary: users, signals, candidates, cycle results, feedback, insights.

Everything a caller sends is validated here (field names in errors come from these
models); everything the LLM sends is validated into ``Candidate`` before it is scored.
"""

from __future__ import annotations

from datetime import datetime, time
from typing import Any, Literal
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
    """A user as an agent registers or updates them (PUT is a full replace of these fields)."""

    model_config = ConfigDict(extra="forbid")

    timezone: str = Field(default="UTC", max_length=64)
    wake_time: str | None = Field(default=None, pattern=CLOCK_PATTERN)
    """Local HH:MM; quiet hours run from ``sleep_time`` to ``wake_time``. None: the settings' default."""
    sleep_time: str | None = Field(default=None, pattern=CLOCK_PATTERN)
    created_at: AwareInstant | None = None
    """When the relationship started (trust counts days from it). None: now."""
    interaction_count: int | None = Field(default=None, ge=0, le=2**31 - 1)
    """Messages the user has sent so far (trust counts them); each ``POST …/messages`` adds one.
    At most what the column holds (the fuzzer's 3·10¹⁹ was a 500 from the database).
    None: 0 for a new user, unchanged for a known one (an update never resets what was counted)."""
    last_active_at: AwareInstant | None = None
    """None: unchanged for a known user (replies keep it current)."""
    channel: Literal["console", "webhook", "whatsapp"] | None = None
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
    timezone: str
    wake_time: str
    sleep_time: str
    created_at: datetime
    interaction_count: int
    last_active_at: datetime | None
    last_user_message_at: datetime | None
    channel: str
    address: str | None
    calendar_url: str | None
    ignored_signal_types: list[str]
    learned_ignored_types: list[str]
    """Signal types this user's feedback shows they ignore (kept apart from the caller's list)."""
    patterns: list[str]
    trust_level: TrustLevel
    opted_out: bool = False
    """The user asked for no proactive messages at all (by the API or in a reply)."""
    opted_out_categories: list[str] = Field(default_factory=list)
    """Categories the user asked not to get (the rest still may be sent)."""
    muted_until: datetime | None = None
    """No proactive message before this time, urgent or not."""

    def wake(self) -> time:
        return time.fromisoformat(self.wake_time)

    def sleep(self) -> time:
        return time.fromisoformat(self.sleep_time)


class SignalIn(Schema):
    """Something the agent noticed that might be worth a message (seed 004 §2: ``Signal``)."""

    model_config = ConfigDict(extra="forbid")

    type: str = Field(min_length=1, max_length=64, pattern=r"^[a-z0-9_.:-]+$")
    urgency_hint: int = Field(ge=1, le=10)
    data: JsonObject = Field(default_factory=dict)
    context_only: bool = False
    """Background for the LLM (e.g. the weather); context-only signals alone never start a cycle."""
    dedup_key: str | None = Field(default=None, min_length=1, max_length=256)
    """The same key again for the same user replaces nothing and is not stored twice. None: type + data."""
    expires_at: AwareInstant | None = None
    """After it the signal is ignored. None: one day after it arrives."""

    @field_validator("data")
    @classmethod
    def _bounded_data(cls, value: dict[str, Any]) -> dict[str, Any]:
        import json

        if len(json.dumps(value, default=str)) > 8000:
            raise ValueError("data must serialise to at most 8000 characters")
        return value


class Signal(Schema):
    id: str
    user_id: str
    type: str
    urgency_hint: int
    data: dict[str, Any]
    context_only: bool
    dedup_key: str
    created_at: datetime
    expires_at: datetime
    consumed_at: datetime | None = None
    cycle_key: str | None = None
    """The cycle that used it."""

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
    category: str = "nudge"
    relevance: float = 5.0
    timing: float = 5.0
    urgency: float = 5.0
    trigger_signals: list[str] = Field(default_factory=list, max_length=20)
    action_type: Literal["text", "button_prompt"] = "text"
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
    cycle_key: str
    decision: Literal["sent", "silent"]
    reason: BlockReason | Literal["sent", "explored"]
    trust_level: TrustLevel | None = None
    llm_called: bool = False
    message: str | None = None
    category: str | None = None
    action_type: str | None = None
    score: float | None = None
    threshold: float | None = None
    probability: float | None = None
    """The probability this send decision had (exploration is random): for off-policy evaluation."""
    send_id: str | None = None
    channel: str | None = None
    delivery: str | None = None
    deferred: int = 0
    """Borderline candidates kept as deferred insights."""
    signals: list[str] = Field(default_factory=list)
    decision_id: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    """Tokens of this cycle's LLM call (None: no call, or the provider did not say)."""


class DeferredInsight(Schema):
    id: str
    user_id: str
    category: str
    message_draft: str
    trigger_signals: list[str]
    relevance_score: float
    created_at: datetime
    expires_at: datetime
    used: bool


class ProactiveFeedback(Schema):
    id: str
    user_id: str
    message: str
    category: str
    trigger_signals: list[str]
    action_type: str
    channel: str
    delivery_status: str
    sent_at: datetime
    outcome: FeedbackOutcome
    response_latency_seconds: float | None
    score: float | None
    probability: float | None
    outcome_at: datetime | None = None
    attempts: int = 0
    """Deliveries tried (the outbox retries a channel that was down, or a worker that died)."""
    delivery_detail: str | None = None
    decision_id: str | None = None


class PreviewIn(Schema):
    """What would happen in a user's cycle (``POST /v1/proactive/preview``): nothing is written."""

    model_config = ConfigDict(extra="forbid")

    user_id: str = Field(min_length=1, max_length=64, pattern=ID_PATTERN)
    at: AwareInstant | None = None
    """The time to decide at (quiet hours, cap, cooldown, signal expiry). None: now."""
    llm: bool = Field(default=True, strict=True)
    """False: template candidates even when an LLM is configured (no LLM call, no cost)."""


class CandidatePreview(Schema):
    message: str
    category: str
    action_type: str
    score: float
    verdict: str
    """approved, deferred, below_threshold, duplicate, suppressed or opted_out. A preview draws no
    exploration: a candidate in the exploration band shows ``deferred`` with the chance it had."""
    probability: float


class Preview(Schema):
    """A cycle decided without its effects: no signal used, no message sent, no record written."""

    user_id: str
    at: datetime
    decision: Literal["would_send", "silent"]
    reason: str
    """Why: a block reason (the pre-filter's or the cycle's), or ``sent``."""
    trust_level: TrustLevel
    threshold: float
    sends_today: int
    signals: list[Signal]
    """The signals the cycle would read (the pre-filter's choice); empty when it blocked."""
    candidates: list[CandidatePreview] = Field(default_factory=list)
    message: str | None = None
    category: str | None = None
    llm_called: bool = False
    fallback_reason: str | None = None


class TimelineEvent(Schema):
    at: datetime
    kind: Literal["signal", "signal_used", "cycle", "send", "feedback"]
    summary: str
    cycle_key: str | None = None
    """Links a used signal, the cycle that used it and its send."""
    ids: dict[str, str] = Field(default_factory=dict)
    """signal_id, decision_id, send_id: what the event is, for a closer look."""
    details: dict[str, Any] = Field(default_factory=dict)


class Timeline(Schema):
    """A user's proactive story, newest first, and what a cycle would decide now."""

    user: UserProfile
    now: Preview
    events: list[TimelineEvent]


class FeedbackSummary(Schema):
    total_sent: int
    engaged: int
    ignored: int
    negative: int
    pending: int
    engagement_rate: float | None
    engagement_by_category: dict[str, float]
    avg_response_latency_seconds: float | None
    late_replies: int = 0
    """Engaged replies that came after the engagement window (still before the ignore timeout)."""
    suppressed_categories: list[str]


class UserMessageIn(Schema):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(default="", max_length=8000)
    button_id: str | None = Field(default=None, max_length=64)
    """The id of a button the user pressed on a button prompt (a ``button_click``)."""

    @model_validator(mode="after")
    def _something(self) -> UserMessageIn:
        if not self.text.strip() and self.button_id is None:
            raise ValueError("give the user's text or the button_id they pressed")
        return self


class OptOut(Schema):
    all: bool
    """True: no proactive message at all any more."""
    categories: list[str] = Field(default_factory=list)
    """Otherwise the categories switched off."""


class OptOutIn(Schema):
    model_config = ConfigDict(extra="forbid")

    categories: list[str] = Field(default_factory=list, max_length=len(CATEGORIES))
    """Empty: everything (an opt-out of all messages; an opt-in back to all of them)."""

    @field_validator("categories")
    @classmethod
    def _known(cls, values: list[str]) -> list[str]:
        unknown = [v for v in values if v not in CATEGORIES]
        if unknown:
            raise ValueError(f"unknown categories {unknown[:5]}; known: {', '.join(CATEGORIES)}")
        return sorted(set(values))


class MuteIn(Schema):
    model_config = ConfigDict(extra="forbid")

    until: AwareInstant | None = None
    minutes: float | None = Field(default=None, gt=0, le=60 * 24 * 366)
    """Give one: a time, or minutes from now."""

    @model_validator(mode="after")
    def _one(self) -> MuteIn:
        if (self.until is None) == (self.minutes is None):
            raise ValueError("give exactly one of until and minutes")
        return self


class UserReply(Schema):
    """What the agent gets back when a user writes: the feedback it caused and insights to weave in."""

    feedback: list[ProactiveFeedback]
    insights: list[DeferredInsight]
    intent: Literal["opt_out", "opt_out_category", "negative", "reply"] = "reply"
    """How the reply was read (``phronesis.proactive.replies``)."""
    opted_out: OptOut | None = None
    """Set when the reply asked to stop: tell the user what they were opted out of."""


class TickReport(Schema):
    """One pass of the scheduler over every due user (or the ones asked for)."""

    cycle_key: str
    tenants: int
    users: int
    """Users with a live concrete signal that the pre-filter looked at."""
    reasons: dict[str, int]
    """How many cycles ended each way: sent, explored, and every block reason."""
    sent: int
    llm_calls: int
    decided_without_llm: float | None
    """Share of cycles that never reached the LLM (the seed reports about 80%)."""
    feedback_expired: int
    """Pending sends marked ignored by this tick (no reply after the ignore timeout)."""
    redelivered: dict[str, int] = Field(default_factory=dict)
    """Committed sends the outbox delivered again (a worker died, the channel was down), by how each ended."""
    elapsed_ms: float
    results: list[CycleResult]
    """The cycles that got past the pre-filter (at most ``max_results``)."""

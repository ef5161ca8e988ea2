"""The proactive loop's settings section (seed 004; ``PHRONESIS_PROACTIVE__*``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SecretStr, field_validator, model_validator

from phronesis.schema import Schema
from phronesis.settings_parts import Probability

__all__ = ["ProactiveSettings", "TrustLevelSettings"]


class TrustLevelSettings(Schema):
    """One rung of seed 004's trust ramp."""

    score_threshold: float = Field(ge=0.0, le=10.0)
    daily_cap: int = Field(ge=0, le=1000)
    min_urgency: int = Field(ge=1, le=10)


TrustLevelName = Literal["new", "building", "established", "deep"]


def _default_trust_levels() -> dict[TrustLevelName, TrustLevelSettings]:
    return {
        "new": TrustLevelSettings(score_threshold=7.0, daily_cap=2, min_urgency=7),
        "building": TrustLevelSettings(score_threshold=6.0, daily_cap=3, min_urgency=6),
        "established": TrustLevelSettings(score_threshold=5.5, daily_cap=4, min_urgency=5),
        "deep": TrustLevelSettings(score_threshold=5.0, daily_cap=5, min_urgency=4),
    }


class ProactiveSettings(Schema):
    """Seed 004 (Donna's decision engine) and ORIGINS §4: every number below is the seed's default."""

    cycle_minutes: float = Field(default=5.0, gt=0.0, le=1440.0)
    """How often every due user gets a cycle (seed: every 5 minutes)."""
    cooldown_minutes: float = Field(default=30.0, ge=0.0, le=1440.0)
    """Seed 004 §3.4: for this many minutes after the user's last proactive message a cycle is blocked
    (``cooldown``), unless a signal is urgent; then only the urgent signals go on."""
    urgent_threshold: int = Field(default=8, ge=1, le=10)
    """Signals at or above it bypass quiet hours and cooldown, never the daily cap."""
    ignored_type_penalty: int = Field(default=2, ge=0, le=9)
    """Extra urgency a signal type the user tends to ignore needs."""
    daily_cap_day: Literal["local", "utc"] = "local"
    """Which day the daily cap counts: the user's local calendar day, or the UTC day (the original's)."""
    default_wake_time: str = Field(default="08:00", pattern=r"^([01]\d|2[0-3]):[0-5]\d$")
    """Seed 004 §3.2: the wake time (``HH:MM``, the user's local time) of a user profile stored without one;
    the user's quiet hours end then."""
    default_sleep_time: str = Field(default="23:00", pattern=r"^([01]\d|2[0-3]):[0-5]\d$")
    """Seed 004 §3.2: the sleep time (``HH:MM``, local) of a user profile stored without one; from then until
    the wake time only urgent signals pass."""
    max_signals: int = Field(default=10, ge=1, le=100)
    """Signals one cycle considers, most urgent first (the original's cap of 10)."""
    trust_levels: dict[TrustLevelName, TrustLevelSettings] = Field(default_factory=_default_trust_levels)
    """Seed 004 §4's table: per level (``new``, ``building``, ``established``, ``deep``, all four), the
    ``score_threshold`` a candidate's composite needs to be sent, the ``daily_cap`` on sends and the
    ``min_urgency`` a signal needs to pass the pre-filter. JSON; a tenant may tune thresholds and caps."""
    building_after_days: int = Field(default=14, ge=0)
    """Seed 004 §4: a user is ``new`` until this many days after signing up and ``building_after_messages``
    messages (both must hold), then ``building``."""
    building_after_messages: int = Field(default=20, ge=0)
    """Seed 004 §4: messages the user must have sent (``interaction_count``) to leave ``new``."""
    established_after_days: int = Field(default=30, ge=0)
    """Seed 004 §4: a user is ``building`` until this many days after signing up and
    ``established_after_messages`` messages (both must hold), then ``established``."""
    established_after_messages: int = Field(default=100, ge=0)
    """Seed 004 §4: messages the user must have sent to reach ``established``."""
    deep_after_days: int = Field(default=90, ge=0)
    """Seed 004 §4: an established user becomes ``deep`` this many days after signing up (days alone)."""
    demote_one_after_days: int = Field(default=30, ge=1)
    """ORIGINS §4: a user inactive this many days (since ``last_active_at``) is one trust level lower."""
    demote_two_after_days: int = Field(default=60, ge=1)
    """ORIGINS §4: a user inactive this many days is two trust levels lower; must exceed ``demote_one_after_days``."""
    relevance_weight: float = Field(default=0.4, ge=0.0, le=1.0)
    """Seed 004 composite score (ORIGINS §4: ``0.4·relevance + 0.35·timing + 0.25·urgency``): the weight of
    the candidate's relevance (0–10). The weights are relative (a weighted mean, so the score stays 0–10);
    a tenant may tune them."""
    timing_weight: float = Field(default=0.35, ge=0.0, le=1.0)
    """The composite score's weight of the candidate's timing (0–10)."""
    urgency_weight: float = Field(default=0.25, ge=0.0, le=1.0)
    """The composite score's weight of the candidate's urgency (0–10)."""
    deferred_min_score: float = Field(default=4.0, ge=0.0, le=10.0)
    """Seed 004 §6 ``DEFERRED_MIN_SCORE``: a candidate scoring at least this, below the trust threshold and
    not explored, is saved as a deferred insight, handed to the agent with the user's next message; lower
    ones are dropped."""
    deferred_ttl_hours: float = Field(default=24.0, gt=0.0, le=24.0 * 30)
    """Seed 004 §6: hours a deferred insight may be surfaced before it expires."""
    wake_retry_hours: float = Field(default=2.0, ge=0.0, le=12.0)
    """A message deferred in the user's quiet hours, or this many hours before they begin, whose
    signals' moments all come after the user's wake, is not kept as a deferred insight: its signals
    wait and are considered again at the wake time (a deadline at 09:30 deferred at 23:30 was
    never told). 0: off."""
    dedup_overlap: Probability = 0.6
    """Without a sentence model: a candidate whose words overlap a recent message's by more than
    this is a repeat (when what either is about is unknown)."""
    repeat_similarity: Probability = 0.75
    """With the sentence model: a candidate whose cosine to a recent message is at least this is a
    repeat (when what either is about is unknown; tuned on the dev half of
    ``benchmarks/data/proactive_repeats.jsonl``)."""
    recent_messages: int = Field(default=10, ge=0, le=100)
    """How many of the user's latest messages a candidate is checked against for repeats…"""
    dedup_window_hours: float = Field(default=24.0, gt=0.0, le=24.0 * 30)
    """…sent within this many hours: yesterday's reminder of a daily thing is not a repeat today."""
    exploration_rate: Probability = 0.1
    """ORIGINS §4: the chance that a candidate within ``exploration_band`` below the trust threshold (and at
    least ``deferred_min_score``) is sent anyway, drawn with the RNG ``seed`` seeds; 0: never."""
    exploration_band: float = Field(default=1.0, ge=0.0, le=10.0)
    """Only candidates this close below the threshold are explored."""
    seed: int | None = None
    """Seed of the exploration RNG (None: from the OS). Every send records its probability."""
    engagement_window_minutes: float = Field(default=60.0, gt=0.0, le=1440.0)
    """Seed 004 §5: a reply within this many minutes of a send is engaged; a later one, before
    ``ignore_timeout_minutes``, is engaged too but counted as a late reply in the feedback summary."""
    ignore_timeout_minutes: float = Field(default=180.0, gt=0.0, le=10_080.0)
    """Seed 004 §5: a send with no reply this many minutes after it is ``ignored`` (a sweep each tick), and a
    later reply is no longer engagement with it. Not shorter than ``engagement_window_minutes``."""
    feedback_days: int = Field(default=30, ge=1, le=365)
    """Seed 004 §5 (``get_feedback_summary(days=30)``): how many days of sends the feedback summary reads
    (its engagement rates go into the candidate prompt), and the signal types a user ignores are learned from."""
    suppress_after_sends: int = Field(default=5, ge=1)
    """A category sent this often with no engagement (within ``suppression_days``) is suppressed."""
    suppress_after_negatives: int = Field(default=3, ge=1)
    """A topic (a signal type, or a category no signal type stood behind) with this many negative replies
    within ``suppression_days`` is suppressed (``negative_feedback``), ORIGINS §4."""
    suppression_days: int = Field(default=14, ge=1, le=365)
    """The window, in days, the suppression rules count sends and negative replies over (ORIGINS §4: 14)."""
    probation_days: int = Field(default=21, ge=1, le=365)
    """A suppressed topic is held this many days; then it is lifted if the user engaged with it meanwhile,
    else held for as long again (ORIGINS §4: 21)."""
    insights_per_reply: int = Field(default=3, ge=0, le=20)
    """Deferred insights handed to the agent with a user's message."""
    temperature: float = Field(default=0.7, ge=0.0, le=2.0)
    """Sampling temperature of the LLM call that writes a cycle's candidates (ORIGINS §4: 0.7)."""
    max_tokens: int = Field(default=800, ge=16, le=8192)
    """Most tokens the LLM call that writes a cycle's candidates may answer with."""
    calendar_days: bool = True
    """Seed 004 §9: a user's calendar also gives ``calendar_busy_day`` and ``calendar_empty_day``
    signals (urgency 5); false: only its events."""
    max_candidates: int = Field(default=3, ge=0, le=10)
    """Most candidates one cycle proposes (ORIGINS §4: 0–3): the LLM is asked for at most this many and any
    more are dropped; template candidates are cut to it too."""
    candidates: Literal["auto", "llm", "templates"] = "auto"
    """auto: the LLM when configured, else template candidates built from the signals."""
    channel: Literal["console", "webhook", "whatsapp"] = "console"
    """The default channel of a user who names none."""
    webhook_url: str | None = None
    """Where the webhook channel posts a message for a user with no address of their own (signed with
    ``webhook_secret``); unset: a webhook user must give one. This exact URL is always allowed out."""
    webhook_secret: SecretStr | None = None
    """HMAC-SHA256 key: every webhook body is signed with it (``X-Phronesis-Signature``)."""
    delivery_attempts: int = Field(default=3, ge=1, le=10)
    """How many times one delivery (webhook, WhatsApp) is tried: after a timeout, a connection error, a 429
    or a 5xx it is tried again, ``delivery_backoff_sec`` later (doubling each time); after another 4xx, not."""
    delivery_timeout_sec: float = Field(default=10.0, gt=0.0, le=120.0)
    """The HTTP timeout of each delivery attempt, in seconds (the same client reads users' calendar feeds)."""
    delivery_backoff_sec: float = Field(default=0.5, ge=0.0, le=60.0)
    """First pause between delivery attempts; it doubles each time."""
    outbox_attempts: int = Field(default=5, ge=1, le=50)
    """Deliveries of one committed send (each with the channel's own retries) before it is
    ``failed``; a failed send does not count toward the cap (exactly once)."""
    outbox_retry_sec: float = Field(default=60.0, ge=0.0, le=86_400.0)
    """Wait before the outbox tries a send again after the channel failed in a way worth
    retrying (timeout, 5xx, 429, a refused connection); it doubles each time."""
    outbox_lease_sec: float | None = Field(default=None, gt=0.0, le=86_400.0)
    """How long a delivery may be in flight before the outbox takes the send as abandoned (a
    worker killed after the commit) and delivers it again with the same idempotency key.
    None: the channel's worst case (attempts × timeout + back-off) plus 30 s."""
    outbox_max_age_minutes: float = Field(default=60.0, gt=0.0, le=10_080.0)
    """A send not delivered this long after its cycle is ``failed`` (expired): a reminder of a
    deadline an hour late is worse than none."""
    record_blocked: bool = False
    """Also write a decision record for every cycle the pre-filter blocks (a quiet night is ~100 per user)."""
    signal_dedup_days: float = Field(default=7.0, gt=0.0, le=365.0)
    """A used or expired signal holds its dedup key this long after it was stored; then the same key
    is a new signal. Keys held for ever would refuse a daily source's signal from day 2."""
    retention_days: float = Field(default=90.0, ge=0.0, le=36_500.0)
    """The server's hourly purge deletes used or expired signals, sends and deferred insights stored
    longer ago than this (blocked-cycle records are decision records: ``audit.retention_days``).
    At least 31: the feedback summary reads 30 days of sends. 0 keeps everything."""

    whatsapp_api_url: str = "https://graph.facebook.com/v21.0"
    """The WhatsApp Cloud API's base URL; messages go to ``<url>/<phone number id>/messages``."""
    whatsapp_phone_number_id: str | None = None
    """The WhatsApp Business phone number id messages are sent from. With ``whatsapp_token`` it enables the
    ``whatsapp`` channel; ``channel=whatsapp`` without both stops start-up."""
    whatsapp_token: SecretStr | None = None
    """The Cloud API access token, sent as a bearer token with every WhatsApp delivery."""
    whatsapp_template: str = "proactive_update"
    """The approved template used outside WhatsApp's 24-hour customer-service window."""
    whatsapp_template_language: str = "en"
    """The language code of ``whatsapp_template`` (e.g. ``en``, ``en_US``)."""
    scheduler: bool = True
    """Run every due user's cycle in ``phronesis serve`` (the embedded default); off when Celery beat does."""
    tick_chunk: int = Field(default=1000, ge=1, le=100_000)
    """Users the pre-filter reads and decides together: a few queries per chunk, not per user."""
    broker_url: str | None = None
    """Celery broker for ``phronesis worker`` / ``phronesis beat`` (e.g. redis://127.0.0.1:6379/0)."""
    queue: str = Field(default="phronesis", min_length=1, max_length=64)
    """Celery queue the proactive tasks go through."""

    @model_validator(mode="after")
    def _ordered(self) -> ProactiveSettings:
        if self.demote_two_after_days <= self.demote_one_after_days:
            raise ValueError("demote_two_after_days must exceed demote_one_after_days")
        if self.ignore_timeout_minutes < self.engagement_window_minutes:
            raise ValueError("ignore_timeout_minutes must not be shorter than engagement_window_minutes")
        if set(self.trust_levels) != {"new", "building", "established", "deep"}:
            raise ValueError("trust_levels needs new, building, established and deep")
        if self.outbox_lease_sec is not None and self.outbox_lease_sec < self.delivery_worst_case_sec:
            raise ValueError(
                f"outbox_lease_sec must cover a delivery's worst case ({self.delivery_worst_case_sec:.0f} s:"
                " delivery_attempts × delivery_timeout_sec + back-off), or a live delivery is sent twice"
            )
        return self

    @property
    def delivery_worst_case_sec(self) -> float:
        backoff = sum(self.delivery_backoff_sec * float(2**n) for n in range(self.delivery_attempts - 1))
        return self.delivery_attempts * self.delivery_timeout_sec + backoff

    @property
    def outbox_lease(self) -> float:
        return self.outbox_lease_sec if self.outbox_lease_sec is not None else self.delivery_worst_case_sec + 30

    @field_validator("retention_days")
    @classmethod
    def _long_enough(cls, value: float) -> float:
        if 0 < value < 31:
            raise ValueError(
                "must be at least 31 (the feedback summary reads 30 days of sends), or 0 to keep everything"
            )
        return value

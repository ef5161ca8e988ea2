"""One ``Settings`` object, read once at start-up, with a nested section per package.

Sources, highest precedence first: explicit keyword arguments, ``PHRONESIS_*``
environment variables (nested with ``__``, e.g. ``PHRONESIS_LLM__SPEC``), the
seeds' own variable names (``EXECUTIVE_HEURISTIC_THRESHOLD``, ``LEARNING_*`` …),
a ``.env`` file, then the defaults below, which are the seeds' numbers.

An invalid value fails here, at start-up, with a message naming the variable
(``load_settings`` turns pydantic's error into a ``ConfigurationError``).
"""

from __future__ import annotations

import difflib
import hashlib
import json
import logging
import os
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from dotenv import dotenv_values
from pydantic import BaseModel, BeforeValidator, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
)

from phronesis.exceptions import ConfigurationError, validation_message
from phronesis.schema import Schema

__all__ = ["SEED_ALIASES", "Settings", "load_settings", "mask_url", "setting_variables", "warn_unknown_variables"]

log = logging.getLogger("phronesis.settings")

ENV_PREFIX = "PHRONESIS_"
NESTED_DELIMITER = "__"


def _confirm_keywords() -> tuple[str, ...]:
    from phronesis.learning.bayesian import CONFIRM_KEYWORDS  # the strategy's own default, one list

    return CONFIRM_KEYWORDS


def _default_channel_prior() -> Mapping[str, tuple[float, float]]:
    from phronesis.heuristics.channel import DEFAULT_CHANNEL_PRIOR  # memory's own default, one table

    return DEFAULT_CHANNEL_PRIOR


def _split_on(separator: str) -> Any:
    """Accept a list as is, or a ``separator``-joined string as the seeds write it."""

    def split(value: Any) -> Any:
        if isinstance(value, str):
            if value.lstrip().startswith("["):
                return json.loads(value)
            return [part.strip() for part in value.split(separator) if part.strip()]
        return value

    return BeforeValidator(split)


Probability = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
PositiveSeconds = Annotated[float, Field(gt=0.0, allow_inf_nan=False)]


class DatabaseSettings(Schema):
    url: str | None = None
    """SQLAlchemy async URL. None: a SQLite file ``phronesis.db`` under ``data_dir``."""
    echo: bool = False
    pool_size: int = Field(default=5, ge=1, le=200)


class LLMSettings(Schema):
    spec: str = "none"
    """``none``, ``openai:MODEL``, ``ollama:MODEL``, ``anthropic:MODEL``,
    ``openai-compatible:BASE_URL#MODEL``. No LLM unless one is named: no silent network default."""
    api_key: SecretStr | None = None
    base_url: str | None = None
    timeout_s: PositiveSeconds = 60.0  # GLADyS OllamaProvider: 60 s
    max_retries: int = Field(default=2, ge=0, le=10)
    backoff_initial_s: float = Field(default=0.5, ge=0.0, le=60.0)
    backoff_max_s: float = Field(default=8.0, ge=0.0, le=600.0)
    max_concurrency: int = Field(default=3, ge=1, le=1024)  # seed 000: max_concurrent_llm = 3
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    max_output_tokens: int = Field(default=1024, ge=1, le=200_000)


class EmbeddingSettings(Schema):
    spec: str = "local:all-MiniLM-L6-v2"
    """``local:all-MiniLM-L6-v2`` (offline, bundled weights), ``hashing:DIM`` (lexical, no model),
    ``openai:MODEL``, ``openai-compatible:BASE_URL#MODEL``."""
    api_key: SecretStr | None = None
    base_url: str | None = None
    timeout_s: PositiveSeconds = 30.0
    device: str = "cpu"
    runtime: Literal["auto", "onnx", "torch"] = "auto"
    """How the local model runs. ``auto``: ONNX Runtime where ``onnxruntime`` is installed (the
    same weights exported once and checked within cosine 0.999 of PyTorch's vectors; a few
    milliseconds a text instead of ~13, and the forward pass releases the GIL), else PyTorch.
    ``onnx``: ONNX Runtime or an error. ``torch``: PyTorch."""
    onnx_dir: Path | None = None
    """Where the ONNX export of the local model is kept (about 90 MB, made on first use). Unset:
    ``$XDG_CACHE_HOME/phronesis/models`` (``~/.cache/phronesis/models``)."""
    precision: Literal["auto", "float32", "bfloat16"] = "auto"
    """Local model arithmetic under PyTorch. ``auto``: bfloat16 where the CPU computes it natively (AVX512-BF16
    or AMX; measured 1.6x faster here, vectors within cosine 0.9999 of float32), else float32."""
    cache_size: int = Field(default=10_000, ge=0, le=10_000_000)
    batch_max_size: int = Field(default=64, ge=1, le=4096)
    batch_max_wait_ms: float = Field(default=0.0, ge=0.0, le=1000.0)
    """Extra wait before an idle model starts a batch. 0 (measured best here): requests that arrive
    in the same event-loop tick, or while a batch is running, still go together."""


class HeuristicSettings(Schema):
    min_similarity: Probability = 0.7  # seed 000 / GLADyS SALIENCE_HEURISTIC_MIN_SIMILARITY
    top_k: int = Field(default=5, ge=1, le=100)  # GLADyS max_evaluation_candidates
    tie_epsilon: float = Field(default=0.02, ge=0.0, le=1.0)
    """Similarities closer than this count as a tie, broken by confidence (similarity-dominant)."""
    counter_margin: float = Field(default=0.0, ge=0.0, le=1.0)
    """A heuristic's scope (issue 46): an event matches only if its best example is more than this
    nearer than its nearest counter-example."""
    prior_strength: float = Field(default=2.0, gt=0.0, le=1000.0)
    """Effective sample size of a new heuristic's prior: Beta(c·n, (1−c)·n). 2.0 is Beta(1,1) at 0.5."""
    default_confidence: Probability = 0.5
    max_text_chars: int = Field(default=4000, ge=16, le=100_000)


class IndexSettings(Schema):
    backend: Literal["auto", "exact", "hnsw", "pgvector"] = "auto"
    """Where heuristics, runs and documents are searched by embedding. ``exact`` / ``hnsw``: in each
    process (exact up to ``exact_max_size`` per partition, then HNSW; ``exact`` never HNSW),
    following the database. ``pgvector``: inside PostgreSQL (workers hold no index). ``auto``:
    pgvector where the database has it, else ``hnsw``."""
    exact_max_size: int = Field(default=20_000, ge=0)
    """A partition larger than this is served by HNSW instead of exact numpy search."""
    hnsw_connectivity: int = Field(default=32, ge=4, le=128)
    """HNSW M. GLADyS's pgvector index used m=16; 32 is measured better on sentence embeddings
    (300k vectors: recall@3 0.991 at efSearch 64 against m=16's 0.987 at efSearch 256, for a
    fifth of the search time; the build takes 1.6x as long)."""
    hnsw_expansion_add: int = Field(default=128, ge=8, le=4096)
    """efConstruction when a graph is built or rebuilt."""
    hnsw_expansion_add_online: int = Field(default=64, ge=8, le=4096)
    """efConstruction for a few vectors added to a built graph while a decision waits (its own new
    run or heuristic): a third of the insertion time of 128 (measured at 100k vectors)."""
    hnsw_expansion_search: int = Field(default=128, ge=8, le=4096)
    follow_interval_s: float = Field(default=0.0, ge=0.0, le=1.0)
    """How often at most a search reads the change feed for writes committed by other processes
    (this process's own writes are searched at once): the longest such a write can be missed.
    0: before every search (one indexed read; concurrent searches share it)."""
    snapshots: bool = True
    """Save large in-process indexes under ``data_dir/index`` and read them back at start-up
    instead of rebuilding them (then the change feed after them)."""
    snapshot_min_size: int = Field(default=20_000, ge=0)
    """Vectors from which an index is saved (a smaller one is rebuilt from its table in ~1 s)."""
    pgvector_ef_search: int = Field(default=50, ge=1, le=1000)
    """pgvector's ``hnsw.ef_search`` on every connection: search breadth against time. At 1M
    vectors, on the m=24 graph ``db upgrade`` builds, recall of matches >= 0.7 is 0.988 / 0.992 /
    0.995 / 0.995 at 30 / 40 / 50 / 100, for a p99 of 5.6 / 6.6-8.9 / 7.1-8.6 / 10.4-13.8 ms
    (``storage.pgvector.HNSW_M``). A search asking for more rows than this still gets them
    (pgvector's iterative scan)."""


class RateLimitSettings(Schema):
    """Requests a client may make (``limits`` syntax: ``30/minute``, ``10/second;600/hour``; empty: no
    limit). Over a limit: 429 problem+json with ``Retry-After``."""

    auth_failures: str = "30/minute"
    """Answers of 401 (an unknown API key, a failed dashboard sign-in) per client address: more are
    refused before they are checked, so keys cannot be guessed at speed."""
    per_key: str = ""
    """Requests per API key (the dev tenant counts as one key). Off by default: set it to what one
    agent may send (e.g. ``50/second;20000/hour``)."""
    per_address: str = ""
    """Requests per client address, with or without a key. Off by default; behind a proxy every
    client has the proxy's address (rate-limit there, or per key)."""
    storage: str = "memory://"
    """Where counts are kept: ``memory://`` (each worker its own) or ``redis://host:6379`` (every
    worker shares them)."""


class ApiSettings(Schema):
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    keys: dict[str, str] = Field(default_factory=dict)
    """Bearer API key → tenant. JSON in the environment: ``PHRONESIS_API__KEYS='{"sk-…":"acme"}'``."""
    dev_mode: bool = False
    """Allow requests without a key, from 127.0.0.1 only, as ``dev_tenant``. Said loudly at start-up."""
    dev_tenant: str = "default"
    max_body_bytes: int = Field(default=10 * 1024 * 1024, ge=1024)
    max_passages_per_request: int = Field(default=2000, ge=1)
    """Passages (a document's whole text and its sentences) one request may have embedded; more is
    refused (422) before any is: the work a request can cause is bounded."""
    body_timeout_s: float = Field(default=30.0, gt=0.0, le=3600.0)
    """A request's body must arrive within this many seconds of its first read (408 after)."""
    warm_up: bool = True
    """Load the embedding model, and fit or read the bundled router, at start-up: the first request
    pays for neither."""
    ready_requires_llm: bool = False
    """``/readyz`` answers 503 while the LLM is down. Off by default: without the LLM decisions
    still run on heuristics and the local router, and say they are degraded."""
    rate_limits: RateLimitSettings = Field(default_factory=RateLimitSettings)
    """``PHRONESIS_API__RATE_LIMITS__AUTH_FAILURES`` and the others."""
    metrics_token: SecretStr | None = None
    """When set, ``/metrics`` answers only ``Authorization: Bearer <token>`` (401 otherwise): its
    counts are summed over tenants, for the operator's scraper, not for a tenant's key."""


class QuotaSettings(Schema):
    """What one tenant may store, counted in rows (None: no limit). A row's size is capped already
    (a document's text at 20,000 characters, free-form JSON at 64 KiB), so rows bound bytes too.
    Counts are read from the database at most every ``refresh_s`` in each process, and a process
    counts its own additions between reads: across processes a tenant can pass its quota by what
    they add within one ``refresh_s``. Decision records are not counted: ``audit.retention_days``
    bounds them."""

    heuristics: int | None = Field(default=None, ge=0)
    documents: int | None = Field(default=None, ge=0)
    runs: int | None = Field(default=None, ge=0)
    sessions: int | None = Field(default=None, ge=0)
    users: int | None = Field(default=None, ge=0)
    signals: int | None = Field(default=None, ge=0)
    tools: int | None = Field(default=None, ge=0)
    refresh_s: float = Field(default=10.0, ge=0.0, le=3600.0)


class OutboundSettings(Schema):
    """Requests to URLs users give (calendar feeds, webhook addresses): see ``phronesis.outbound``."""

    allow: Annotated[list[str], NoDecode, _split_on(",")] = Field(default_factory=list)
    """Hosts or networks (CIDR) a user's URL may reach although they are loopback, private or
    link-local, e.g. ``calendar.intranet,10.1.0.0/16``. The hosts of the operator's own
    ``webhook_url`` and ``whatsapp_api_url`` themselves are always allowed (exactly those URLs, not
    their hosts' other ports or paths)."""
    max_response_bytes: int = Field(default=5_000_000, ge=1024, le=100_000_000)


class AuditSettings(Schema):
    retention_days: float = Field(default=30.0, gt=0.0)
    rollup_interval_s: float = Field(default=600.0, ge=0.0, le=86_400.0)
    """How often the server rolls up finished hours for the dashboard, for every tenant with new
    records (0: only when a page asks, which makes a first view over months of records slow)."""


class OtelSettings(Schema):
    """OpenTelemetry tracing (``phronesis.telemetry``; the ``otel`` extra): a span per decision."""

    enabled: bool = False
    exporter: Literal["otlp", "console"] = "otlp"
    """Where spans go when the process has no tracer provider of its own: ``otlp`` (the standard
    ``OTEL_EXPORTER_OTLP_ENDPOINT``, named in the start-up log) or ``console``."""
    service_name: str = Field(default="phronesis", min_length=1, max_length=128)


class ExecutiveSettings(Schema):
    decision_strategy: str = "heuristic_first"
    heuristic_threshold: Probability = 0.7
    personality_bias: float = Field(default=0.0, ge=-0.5, le=0.5, allow_inf_nan=False)
    """Seed 000 F-24's ``confidence_threshold`` bias for an event that carries none of its own
    ("populated from user profile or domain config"): this deployment's domain default."""
    goals: Annotated[list[str], NoDecode, _split_on(";")] = Field(default_factory=list)
    max_candidates: int = Field(default=3, ge=1, le=5)  # seed 000: default 3, hard max 5
    llm_confidence_ceiling: Probability = 0.8
    max_concurrent_llm: int = Field(default=3, ge=1, le=1024)
    endorsement_threshold: Probability = 0.75
    endorsement_weight: float = Field(default=0.0, ge=0.0, le=10.0)
    """Seed 000 F-04: convergence does not boost confidence (0). GLADyS bootstrapped with 0.5."""
    known_sources: Annotated[list[str], NoDecode, _split_on(",")] = Field(default_factory=list)
    """When set, an event from any other source is refused (422). Empty: any well-formed source."""
    system_prompt_file: Path | None = None
    prediction_prompt_file: Path | None = None
    trace_retention_s: PositiveSeconds = 7 * 24 * 3600.0
    """How long a decision accepts feedback (GLADyS kept traces 300 s in memory and lost later feedback)."""
    urgency_threshold_reduction: Probability = 0.3
    """urgency_tiered: effective threshold = base − urgency × reduction (seed 000, Selection Strategy)."""
    urgency_immediate_min: Probability = 0.7
    urgency_soon_min: Probability = 0.3
    urgency_reasonable_similarity: Probability = 0.7
    """Immediate tier: any candidate at least this similar is a "reasonable match"."""
    urgency_high_similarity: Probability = 0.85
    """Not-urgent tier: only a single candidate this similar (and above threshold) fires."""
    probation_after_sec: float = Field(default=3600.0, ge=0.0, le=30 * 86400.0)
    """Issue 46, the recovery rule (``executive.recovery``): a heuristic pushed below the threshold by one
    undo or complaint may fire once more, on probation, this long after it; 0 at once."""
    recovery_enabled: bool = True
    emergency_enabled: bool = True
    emergency_min_confidence: Probability = 0.95  # GLADyS orchestrator emergency fast path
    emergency_min_threat: Probability = 0.9
    experiment_arms: dict[str, float] = Field(default_factory=dict)
    """A/B split: strategy name → weight, e.g. ``{"heuristic_first": 0.5, "always_llm": 0.5}``. Empty: no experiment."""
    experiment_key: Literal["user", "source", "event"] = "user"
    experiment_salt: str = "phronesis"
    exploration_rate: Probability = 0.0
    """heuristic_first: the share of decisions with no confident candidate that may fire one anyway,
    chosen by Thompson sampling from its Beta posterior (0 = off). Each explored fire records its
    propensity, so a heuristic below the threshold can recover without an LLM (issue 21)."""
    observe_on_decide: bool = True
    """An event decided from a source is also that source's follow-up to its open fires (undo,
    thanks, ignore: seed 001), so an agent that only calls decide gets correct learning."""
    learn_from_feedback: bool = True
    """Seed 000 ``ProvideFeedback``: positive feedback on an LLM-path answer teaches a new heuristic."""
    reinforce_threshold: Probability = 0.75  # GLADyS HEURISTIC_REINFORCE_THRESHOLD
    learned_confidence: Probability = 0.3  # F-06: LLM-path heuristics start at 0.3
    pattern_min_words: int = Field(default=10, ge=1, le=1000)
    pattern_max_words: int = Field(default=50, ge=1, le=1000)

    @model_validator(mode="after")
    def _consistent(self) -> ExecutiveSettings:
        if self.urgency_soon_min > self.urgency_immediate_min:
            raise ValueError("urgency_soon_min must not exceed urgency_immediate_min")
        if self.pattern_min_words > self.pattern_max_words:
            raise ValueError("pattern_min_words must not exceed pattern_max_words")
        if any(not (weight > 0.0 and weight < float("inf")) for weight in self.experiment_arms.values()):
            raise ValueError("experiment_arms weights must be positive numbers")
        return self


class LearningSettings(Schema):
    strategy: str = "bayesian"
    undo_window_sec: PositiveSeconds = 30.0  # seed 001, F-11
    related_similarity: Probability = 0.6
    """Issue 46: a follow-up is about an open fire (and can undo, thank or ignore it) when it is at least
    this similar to the fire's event, speaks of its action (a word of it), or names it (``reply_to``);
    an undo, thanks or complaint about none of them answers the latest. all-MiniLM-L6-v2 puts unrelated
    household events (a parcel, the dishwasher) below 0.3 of each other, and two different requests of
    one CLINC150 domain mostly between 0.3 and 0.6."""
    lesson_like_similarity: Probability = 0.8
    """Issue 46: a negative outcome on an event at least this similar to something the heuristic is
    confirmed to apply to (its condition, its examples) lowers its confidence (the action was wrong);
    on an event less similar, the event becomes a counter-example and the confidence stays (the match
    was wrong). all-MiniLM-L6-v2 puts a restatement of one situation at 0.8 and more ("it is dark
    outside now" / "it is getting dark outside": 0.88): teaching it as a counter-example would cut a
    real paraphrase out of the scope. The labelled set's dev half (``bench_executive_quality.py``)
    had its wrong fires between 0.70 and 0.89; those above 0.8 were opposites the contrast rules
    missed, which then cost confidence rather than scope."""
    ignored_threshold: int = Field(default=3, ge=1, le=1000)
    undo_keywords: Annotated[list[str], NoDecode, _split_on(",")] = Field(
        default_factory=lambda: ["undo", "revert", "cancel", "rollback", "nevermind", "never mind"], min_length=1
    )
    """Replaces the default list (it does not add to it)."""
    confirm_keywords: Annotated[list[str], NoDecode, _split_on(",")] = Field(
        default_factory=lambda: list(_confirm_keywords()), min_length=1
    )
    """A follow-up saying one of these confirms the open fires of its source (``user_implicit``).
    Replaces the default list (it does not add to it)."""
    implicit_magnitude: float = Field(default=1.0, gt=0.0, le=10.0)
    explicit_magnitude: float = Field(default=0.8, gt=0.0, le=10.0)
    user_score_magnitudes: tuple[float, float, float] = (-0.8, 0.0, 0.8)
    """F-23 user 3-point score (1 bad, 2 meh, 3 good) → signed magnitude; 0 is neutral (recorded, no update)."""
    dev_score_magnitudes: tuple[float, float, float, float, float] = (-0.4, -0.2, 0.05, 0.2, 0.4)
    """F-23 developer 5-point score (1…5) → signed magnitude."""
    half_life_sec: PositiveSeconds = 24 * 3600.0
    """``discounted_beta`` and ``calibrated``: evidence above the prior halves every this many seconds
    (a day). bench_learning (hourly fires): a drifted heuristic falls below the threshold after a
    median 15 fires (3 days: 30), with no loss of ranking."""
    channel_prior: dict[str, tuple[Probability, Probability]] = Field(
        default_factory=lambda: dict(_default_channel_prior())
    )
    """``calibrated``: per implicit outcome (``implicit_timeout``, ``implicit_undo``, ``implicit_ignored``,
    ``user_implicit``), P(outcome | the fire helped) and P(outcome | it did not), before rated fires teach
    the tenant's own (``heuristics.channel``). Outcomes left out keep their default; each column is
    normalised to sum to 1."""
    channel_prior_strength: float = Field(default=20.0, gt=0.0, le=1e6, allow_inf_nan=False)  # channel.py's default
    """``calibrated``: the prior weighs as much as this many rated fires of each kind."""

    @field_validator("channel_prior")
    @classmethod
    def _a_channel_prior(cls, given: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
        """Outcomes left out keep their default (a prior for one outcome does not zero the others);
        unknown outcomes and an empty column are refused, naming the outcomes that exist."""
        from phronesis.heuristics.channel import Channel

        merged = {**_default_channel_prior(), **given}
        Channel.prior(merged, 1.0)
        return merged

    @field_validator("strategy")
    @classmethod
    def _a_strategy(cls, name: str) -> str:
        from phronesis.learning.factory import LEARNING_STRATEGIES, unknown_strategy

        if name not in LEARNING_STRATEGIES:
            raise ValueError(unknown_strategy(name))
        return name

    bounds_enabled: bool = False
    """F-05: keep every confidence within [min_confidence, max_confidence] (off by default, as in GLADyS)."""
    min_confidence: Probability = 0.05
    max_confidence: Probability = 0.95
    decay_k: float = Field(default=0.0, ge=0.0, le=100.0)
    """F-03 diminishing returns: a signal weighs ``magnitude / (1 + k·n)``, n = signals the heuristic had. 0: off."""
    sweep_interval_sec: PositiveSeconds = 5.0
    """How often the service turns fires older than the undo window into timeout positives."""
    max_clock_skew_sec: float = Field(default=5.0, ge=0.0, le=3600.0)
    """A timestamp further than this in the future is refused."""

    @model_validator(mode="after")
    def _bounds_ordered(self) -> LearningSettings:
        if self.min_confidence >= self.max_confidence:
            raise ValueError("min_confidence must be below max_confidence")
        return self


class RoutingSettings(Schema):
    """Seed 002 (and ORIGINS §2, the code behind it): every number below is the seed's default."""

    router: Literal["local", "llm", "cascade"] = "cascade"
    """local: the fitted router alone; llm: the LLM router alone; cascade: the LLM only when the local one abstains."""
    router_name: str = Field(default="default", min_length=1, max_length=64)
    router_cache_dir: Path | None = None
    """Where the bundled router is kept once fitted (a few hundred kB per model; fitted at a server's
    first start, before it answers, and again only when its exemplars, the model or the fitting code
    change). Unset: ``$XDG_CACHE_HOME/phronesis/routers`` (``~/.cache/phronesis/routers``)."""
    temperature: float = Field(default=0.3, ge=0.0, le=2.0)
    max_tokens: int = Field(default=500, ge=16, le=8192)
    history_turns: int = Field(default=5, ge=0, le=50)
    high_threshold: Probability = 0.75
    """≥ this: proceed with the decision."""
    low_threshold: Probability = 0.5
    """Below this: escalate. Between the two: clarify or retrieve more."""
    ambiguity_margin: Probability = 0.1
    """Rasa's ambiguity test: the top two decisions within this margin → CLARIFY."""
    clarify_min_score: Probability = 0.35
    """A CLARIFY without a question offers the documents scoring at least this (below the answering floor:
    they are options to choose from, not sources to answer with)."""
    tool_min_similarity: Probability = 0.4
    """USE_TOOL: a tool is meant only if the query is at least this similar to its description or one
    of its examples (all-MiniLM-L6-v2: the right tool 0.74–0.94 when phrased like an example, 0.3–0.5
    when not; another tool's up to 0.34: "Send me a follow-up email." scores 0.32 against a calendar).
    0.3 named the right tool more often on the sales set's dev half, where every tool is registered,
    but with only a calendar registered it booked meetings for email requests."""
    tool_over_escalation: Probability = 0.8
    """A local ESCALATE (the router's label, not a rule) less sure than this yields to a registered
    tool the query clearly asks for (``tool_choice``): "Change our country to Canada." read as an
    escalation (p 0.73) is what the CRM tool does. 0 turns it off."""
    tool_lexical_weight: Probability = 0.2
    """USE_TOOL: added to a tool's score × the share of the query's content words its texts use
    (``tool_choice.word_overlap``; sales set, dev half, bundled router: the right tool named 26 times
    instead of 20, the wrong one 2 instead of 3)."""
    question_over_escalation: Probability = 0.5
    """A question the local router reads as an escalation, with no seed trigger (no sensitive topic,
    no ask for a person), is answered when a source is at least this similar to it (issue 47:
    "can we be billed in GBP?" handed the chat to a person). 1 turns it off."""
    question_over_clarify: Probability = 0.5
    """A question the local router would only ask about (CLARIFY, out of scope) is answered when a
    source is at least this similar to it ("can the trial be extended?" asked "Is your question
    about Contract terms…?"). A question that leans on what came before ("How much does it cost?",
    the seed's vague example) is still asked about. 1 turns it off."""
    tool_over_router: Probability = 0.6
    """A turn the local router could only ask about, or found out of scope, is a tool call when a
    tool's description or examples match it at least this well ("upgrade to pro 15 seats"). 1 turns it off."""
    tool_margin: Probability = 0.08
    """USE_TOOL: the best tool must lead the runner-up by this much, else the user is asked between the two."""
    out_of_scope_decision: Literal["ESCALATE", "CLARIFY"] = "CLARIFY"
    """What an out-of-scope turn (small talk, the weather) becomes: ``CLARIFY`` says what the agent
    can help with and the conversation goes on; ``ESCALATE`` hands the session to a person (issue 47:
    "who won the football last night?" made the session human-owned). A CLARIFY for it does not
    count toward ``max_clarifications``."""
    timezone: str = "UTC"
    """The IANA timezone in which a lead's dates and times are read ("Thursday at 2pm") when its
    ``lead_context`` has no ``timezone``."""
    cascade_threshold: Probability = 0.75
    """Cascade: the local router decides alone when it does not abstain and its probability is at least this."""
    router_weight: Probability = 0.0
    """Final confidence = router_weight·router + (1 − router_weight)·composite. Seed 002's confidence is
    the composite alone (0, the default); the router's confidence enters it as the intent clarity in
    context completeness. Measured on the sales set's dev half (``bench_routing_sales --set
    router_weight=…``): 0 puts 74.6 % of the bundled router's decisions right and 90.7 % of a 90 %
    accurate LLM's, against 73.7 / 90.7 % at 0.5 and 0.6: a blend did not decide better. (With the
    older composite, 0.5 had been better; that composite scored a first anonymous turn's context
    0.24 and an exact pricing page 0.42.)"""
    llm_confidence_ceiling: Probability = 0.8
    """An LLM's self-reported confidence is uncalibrated; it is capped here (GLADyS' 0.8 ceiling)."""
    weight_source_quality: Probability = 0.3
    weight_query_complexity: Probability = 0.2
    weight_context_completeness: Probability = 0.3
    weight_tool_success: Probability = 0.2
    conflict_penalty: Probability = 0.5
    """Seed 002 ``calculate_confidence``: × 0.5 when retrieved sources conflict."""
    sensitive_topics: Annotated[list[str], NoDecode, _split_on(",")] = Field(
        default_factory=lambda: ["refund", "legal", "complaint", "sue", "compensation", "custom"]
    )
    critical_topics: Annotated[list[str], NoDecode, _split_on(",")] = Field(
        default_factory=lambda: ["contract", "payment", "security", "invoice", "billing"]
    )
    """A query naming one of these is critical: a retrieval failure escalates instead of answering."""
    lead_context_fields: Annotated[list[str], NoDecode, _split_on(",")] = Field(
        default_factory=lambda: ["email", "name", "company", "status"]
    )
    """The CRM fields the seed's prompt uses; how many are known is half of context completeness."""
    max_clarifications: int = Field(default=2, ge=1, le=10)
    """Rasa's two-stage fallback: this many CLARIFY turns in a row, then the next low-confidence turn escalates."""
    error_message: str = "I'm experiencing technical difficulties. A team member will assist you."
    handoff_message: str = "I'm connecting you with a member of our team who can help with this."
    retrieval_top_k: int = Field(default=8, ge=1, le=100)
    retrieval_min_score: Probability = 0.5
    """Sources scoring below this (0.6·similarity + 0.2·recency + 0.2·quality) are not kept. The original
    used 0.6, which with all-MiniLM-L6-v2 and documents embedded whole kept a source for 17 % of the
    sales set's factual questions (dev half, ``bench_routing_sales``); 0.45 was chosen then. Documents
    are searched by passage since (``routing.passages``), and a sentence scores higher than its
    document, unrelated ones too (about 0.25): 0.45 kept a policy from a similarity of 0.22, so the
    refund policy came with the price list for "What is your Starter plan pricing?". 0.5 keeps it
    from about 0.3, with the same accuracy on the dev half (router fitted in two folds: 0.45 and 0.5
    83.9 %, 0.55 84.4 %)."""
    retrieval_min_similarity: Probability = 0.4
    """A source must also be this similar to the query by itself (its best passage's cosine): the
    rerank's recency and quality alone give a fresh pricing sheet 0.33-0.39 of the 0.5 it needs,
    so without this an unrelated one was kept (a fresh-clone trial: "What is your data retention
    policy?" answered from the price list). Sales set, dev half, router fitted in two folds:
    0 and 0.3 83.9 %, 0.35 and 0.4 84.4 %, 0.45 83.9 % of decisions right; of the two best, the
    one that also keeps the refund policy (0.37) out of "What is your data retention policy?"."""
    rerank_similarity_weight: Probability = 0.6
    rerank_recency_weight: Probability = 0.2
    rerank_quality_weight: Probability = 0.2
    recency_days: float = Field(default=90.0, gt=0.0, allow_inf_nan=False)
    """Recency factor ``exp(−age_days / recency_days)``; a document with no date gets ``default_recency``."""
    default_recency: Probability = 0.7
    doc_type_quality: dict[str, Probability] = Field(
        default_factory=lambda: {"pricing": 0.95, "sop": 0.95, "policy": 0.9, "faq": 0.8, "general": 0.7}
    )
    conflict_similarity: Probability = 0.75
    """Two sources of one doc type this similar that state different figures conflict."""
    retrieval_failure_penalty: Probability = 0.7
    """Seed 002: retrieval failed on a non-critical query → REASON_ONLY with confidence × 0.7."""
    max_tool_retries: int = Field(default=3, ge=0, le=3)
    document_jobs_per_tenant: int = Field(default=4, ge=1, le=1000)
    """Document jobs (``POST /v1/documents/jobs``) a tenant may have waiting or running at once;
    one more is refused (409) until one ends."""
    document_job_chunk_passages: int = Field(default=64, ge=1, le=10_000)
    """A job stores its documents a chunk at a time, each of about this many passages (at least one
    document), committed with the job's progress: a killed worker's job resumes after the last."""
    document_job_busy_share: float = Field(default=0.25, gt=0.0, le=1.0)
    """The share of its time a job works: after each piece it rests for the piece's time ×
    (1/share − 1), and requests meanwhile find the database and the CPU free. A 2 MB job beside a
    decide loop (SQLite, one worker, 2 cores): decide p99 2.5× its idle at 0.5, 2.0× at 0.2."""
    document_job_lease_s: float = Field(default=60.0, ge=1.0, le=3600.0)
    """A running job not heard from in this long (its worker died) is taken over by another worker."""
    document_job_poll_s: float = Field(default=1.0, gt=0.0, le=3600.0)
    """How often each server process looks for a waiting job."""
    document_jobs_in: Literal["process", "server"] = "process"
    """``process``: a server starts a process of its own for waiting jobs, niced, its model on one
    thread (requests keep their speed); ``server``: jobs run in the server's own event loop."""
    document_job_nice: int = Field(default=19, ge=0, le=19)
    """How much lower the job process's priority is than the server's (``nice``)."""

    @model_validator(mode="after")
    def _consistent(self) -> RoutingSettings:
        if self.low_threshold > self.high_threshold:
            raise ValueError("low_threshold must not exceed high_threshold")
        weights = (
            self.weight_source_quality,
            self.weight_query_complexity,
            self.weight_context_completeness,
            self.weight_tool_success,
        )
        if abs(sum(weights) - 1.0) > 1e-6:
            raise ValueError("the four composite confidence weights must sum to 1")
        rerank = self.rerank_similarity_weight + self.rerank_recency_weight + self.rerank_quality_weight
        if abs(rerank - 1.0) > 1e-6:
            raise ValueError("the three rerank weights must sum to 1")
        return self


class AdmissionSettings(Schema):
    """Seed 003 (and ORIGINS §3, the code behind it): every number below is the seed's default."""

    low_similarity: Probability = 0.7
    """Seed ``LOW_SIMILARITY_THRESHOLD``: candidates below it do not count; best below it → ADD."""
    duplicate_threshold: Probability = 0.95
    """Seed ``VERY_HIGH_SIMILARITY_THRESHOLD``: at or above it with the same structure a run is a likely
    duplicate. ``phronesis admission calibrate`` replaces it per tenant from labelled pairs."""
    top_k: int = Field(default=3, ge=1, le=20)
    """How many similar runs the judge sees (seed: top 3)."""
    judge: Literal["auto", "llm", "rules"] = "auto"
    """auto: the LLM judge when an LLM is configured, else the rule judge."""
    fail_safe: Literal["ADD", "NOT", "rules"] = "ADD"
    """What an unusable LLM verdict becomes. Never destructive: ADD (the seed's), NOT, or the rule judge's."""
    temperature: float = Field(default=0.1, ge=0.0, le=2.0)
    max_tokens: int = Field(default=1048, ge=16, le=8192)
    summariser: Literal["auto", "llm", "extractive"] = "auto"
    """auto: the LLM when configured, else a deterministic extractive summary."""
    summary_temperature: float = Field(default=0.3, ge=0.0, le=2.0)
    summary_sentences: int = Field(default=7, ge=1, le=50)
    """Seed: a 5–7 sentence summary; the extractive summary keeps at most this many sentences."""
    max_summary_chars: int = Field(default=2000, ge=100, le=20_000)
    max_batch: int = Field(default=1000, ge=1, le=100_000)
    """Most runs one batch admits (one transaction)."""
    calibration_cache_sec: float = Field(default=5.0, ge=0.0, le=3600.0)
    superseded_retention_days: float | None = Field(default=None, gt=0.0, le=36_500.0)
    """Delete runs superseded longer ago than this (the server's hourly purge, ``phronesis
    admission purge``). None (the default): keep them, as seed 003 does (REPLACE never deletes)."""
    """How long a process trusts the tenant's calibrated threshold before re-reading it."""
    max_attempts: int = Field(default=3, ge=1, le=10)
    """A batch that meets a concurrent writer's change (target superseded, same run stored) is re-decided."""

    @model_validator(mode="after")
    def _ordered(self) -> AdmissionSettings:
        if self.low_similarity > self.duplicate_threshold:
            raise ValueError("low_similarity must not exceed duplicate_threshold")
        return self


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
    urgent_threshold: int = Field(default=8, ge=1, le=10)
    """Signals at or above it bypass quiet hours and cooldown, never the daily cap."""
    ignored_type_penalty: int = Field(default=2, ge=0, le=9)
    """Extra urgency a signal type the user tends to ignore needs."""
    daily_cap_day: Literal["local", "utc"] = "local"
    """Which day the daily cap counts: the user's local calendar day, or the UTC day (the original's)."""
    default_wake_time: str = Field(default="08:00", pattern=r"^([01]\d|2[0-3]):[0-5]\d$")
    default_sleep_time: str = Field(default="23:00", pattern=r"^([01]\d|2[0-3]):[0-5]\d$")
    max_signals: int = Field(default=10, ge=1, le=100)
    """Signals one cycle considers, most urgent first (the original's cap of 10)."""
    trust_levels: dict[TrustLevelName, TrustLevelSettings] = Field(default_factory=_default_trust_levels)
    building_after_days: int = Field(default=14, ge=0)
    building_after_messages: int = Field(default=20, ge=0)
    established_after_days: int = Field(default=30, ge=0)
    established_after_messages: int = Field(default=100, ge=0)
    deep_after_days: int = Field(default=90, ge=0)
    demote_one_after_days: int = Field(default=30, ge=1)
    demote_two_after_days: int = Field(default=60, ge=1)
    relevance_weight: float = Field(default=0.4, ge=0.0, le=1.0)
    timing_weight: float = Field(default=0.35, ge=0.0, le=1.0)
    urgency_weight: float = Field(default=0.25, ge=0.0, le=1.0)
    deferred_min_score: float = Field(default=4.0, ge=0.0, le=10.0)
    deferred_ttl_hours: float = Field(default=24.0, gt=0.0, le=24.0 * 30)
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
    exploration_band: float = Field(default=1.0, ge=0.0, le=10.0)
    """Only candidates this close below the threshold are explored."""
    seed: int | None = None
    """Seed of the exploration RNG (None: from the OS). Every send records its probability."""
    engagement_window_minutes: float = Field(default=60.0, gt=0.0, le=1440.0)
    ignore_timeout_minutes: float = Field(default=180.0, gt=0.0, le=10_080.0)
    feedback_days: int = Field(default=30, ge=1, le=365)
    suppress_after_sends: int = Field(default=5, ge=1)
    """A category sent this often with no engagement (within ``suppression_days``) is suppressed."""
    suppress_after_negatives: int = Field(default=3, ge=1)
    suppression_days: int = Field(default=14, ge=1, le=365)
    probation_days: int = Field(default=21, ge=1, le=365)
    insights_per_reply: int = Field(default=3, ge=0, le=20)
    """Deferred insights handed to the agent with a user's message."""
    temperature: float = Field(default=0.7, ge=0.0, le=2.0)
    max_tokens: int = Field(default=800, ge=16, le=8192)
    calendar_days: bool = True
    """Seed 004 §9: a user's calendar also gives ``calendar_busy_day`` and ``calendar_empty_day``
    signals (urgency 5); false: only its events."""
    max_candidates: int = Field(default=3, ge=0, le=10)
    candidates: Literal["auto", "llm", "templates"] = "auto"
    """auto: the LLM when configured, else template candidates built from the signals."""
    channel: Literal["console", "webhook", "whatsapp"] = "console"
    """The default channel of a user who names none."""
    webhook_url: str | None = None
    webhook_secret: SecretStr | None = None
    """HMAC-SHA256 key: every webhook body is signed with it (``X-Phronesis-Signature``)."""
    delivery_attempts: int = Field(default=3, ge=1, le=10)
    delivery_timeout_sec: float = Field(default=10.0, gt=0.0, le=120.0)
    delivery_backoff_sec: float = Field(default=0.5, ge=0.0, le=60.0)
    """First pause between delivery attempts; it doubles each time."""
    outbox_attempts: int = Field(default=5, ge=1, le=50)
    """Deliveries of one committed send (each with the channel's own retries) before it is
    ``failed``; a failed send does not count toward the cap (issue 24: exactly once)."""
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
    is a new signal. Keys held for ever refused a daily source's signal from day 2 (issue 24)."""
    retention_days: float = Field(default=90.0, ge=0.0, le=36_500.0)
    """The server's hourly purge deletes used or expired signals, sends and deferred insights stored
    longer ago than this (blocked-cycle records are decision records: ``audit.retention_days``).
    At least 31: the feedback summary reads 30 days of sends. 0 keeps everything."""

    whatsapp_api_url: str = "https://graph.facebook.com/v21.0"
    whatsapp_phone_number_id: str | None = None
    whatsapp_token: SecretStr | None = None
    whatsapp_template: str = "proactive_update"
    """The approved template used outside WhatsApp's 24-hour customer-service window."""
    whatsapp_template_language: str = "en"
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


SEED_ALIASES: Mapping[str, tuple[str, str]] = {
    "EXECUTIVE_DECISION_STRATEGY": ("executive", "decision_strategy"),
    "EXECUTIVE_HEURISTIC_THRESHOLD": ("executive", "heuristic_threshold"),
    "EXECUTIVE_GOALS": ("executive", "goals"),
    "EXECUTIVE_MAX_CANDIDATES": ("executive", "max_candidates"),
    "EXECUTIVE_MAX_CONCURRENT_LLM": ("executive", "max_concurrent_llm"),
    "EXECUTIVE_ENDORSEMENT_THRESHOLD": ("executive", "endorsement_threshold"),
    "EXECUTIVE_ENDORSEMENT_WEIGHT": ("executive", "endorsement_weight"),
    "EXECUTIVE_LLM_CONFIDENCE_CEILING": ("executive", "llm_confidence_ceiling"),
    "EXECUTIVE_SYSTEM_PROMPT_FILE": ("executive", "system_prompt_file"),
    "EXECUTIVE_PREDICTION_PROMPT_FILE": ("executive", "prediction_prompt_file"),
    "LEARNING_STRATEGY": ("learning", "strategy"),
    "LEARNING_UNDO_WINDOW_SEC": ("learning", "undo_window_sec"),
    "LEARNING_IGNORED_THRESHOLD": ("learning", "ignored_threshold"),
    "LEARNING_UNDO_KEYWORDS": ("learning", "undo_keywords"),
    "LEARNING_IMPLICIT_MAGNITUDE": ("learning", "implicit_magnitude"),
    "LEARNING_EXPLICIT_MAGNITUDE": ("learning", "explicit_magnitude"),
    "LEARNING_HALF_LIFE_SEC": ("learning", "half_life_sec"),
    "LEARNING_DECAY_K": ("learning", "decay_k"),
    "SALIENCE_HEURISTIC_MIN_SIMILARITY": ("heuristics", "min_similarity"),
    "CONFIDENCE_HIGH_THRESHOLD": ("routing", "high_threshold"),
    "CONFIDENCE_LOW_THRESHOLD": ("routing", "low_threshold"),
    "RAG_CONFIDENCE_THRESHOLD": ("routing", "retrieval_min_score"),
    "RAG_TOP_K": ("routing", "retrieval_top_k"),
    "LOW_SIMILARITY_THRESHOLD": ("admission", "low_similarity"),
    "VERY_HIGH_SIMILARITY_THRESHOLD": ("admission", "duplicate_threshold"),
}
"""The environment variable names the seeds define, mapped to (section, field)."""


def _variables(env_file: Path | None) -> dict[str, str]:
    """The variables settings are read from: ``env_file``'s, then the environment's (which win)."""
    values: dict[str, str] = {}
    if env_file is not None and env_file.is_file():
        values.update({k: v for k, v in dotenv_values(env_file).items() if v is not None})
    values.update(os.environ)
    return values


def _seed_alias_values(env_file: Path | None) -> dict[str, str]:
    return {k: v for k, v in _variables(env_file).items() if k in SEED_ALIASES}


class _SeedAliasSource(PydanticBaseSettingsSource):
    """Reads the seeds' variable names (from the environment and ``.env``) into nested sections."""

    def __init__(self, settings_cls: type[BaseSettings], env_file: Path | None) -> None:
        super().__init__(settings_cls)
        self._env_file = env_file

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # everything is produced by __call__

    def __call__(self) -> dict[str, Any]:
        nested: dict[str, dict[str, str]] = {}
        for name, value in _seed_alias_values(self._env_file).items():
            section, field = SEED_ALIASES[name]
            nested.setdefault(section, {})[field] = value
        return nested


class Settings(BaseSettings):
    """Effective configuration. Build it with ``load_settings()`` to get friendly errors."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter=NESTED_DELIMITER,
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        validate_default=True,
    )

    data_dir: Path | None = None
    """Where the default SQLite file lives. None: the user's data dir (platformdirs)."""
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    log_format: Literal["text", "json"] = "text"
    """``json``: one JSON object per line (time, level, logger, message, request id, traceback)."""
    database: DatabaseSettings = Field(default_factory=DatabaseSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    embeddings: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    heuristics: HeuristicSettings = Field(default_factory=HeuristicSettings)
    index: IndexSettings = Field(default_factory=IndexSettings)
    api: ApiSettings = Field(default_factory=ApiSettings)
    audit: AuditSettings = Field(default_factory=AuditSettings)
    otel: OtelSettings = Field(default_factory=OtelSettings)
    outbound: OutboundSettings = Field(default_factory=OutboundSettings)
    quotas: QuotaSettings = Field(default_factory=QuotaSettings)
    executive: ExecutiveSettings = Field(default_factory=ExecutiveSettings)
    learning: LearningSettings = Field(default_factory=LearningSettings)
    routing: RoutingSettings = Field(default_factory=RoutingSettings)
    admission: AdmissionSettings = Field(default_factory=AdmissionSettings)
    proactive: ProactiveSettings = Field(default_factory=ProactiveSettings)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        env_file = settings_cls.model_config.get("env_file")
        seed_source = _SeedAliasSource(settings_cls, Path(env_file) if isinstance(env_file, str | Path) else None)
        return (init_settings, env_settings, seed_source, dotenv_settings, file_secret_settings)

    def database_url(self) -> str:
        """The effective database URL (the embedded SQLite file unless one is set)."""
        if self.database.url:
            return self.database.url
        return f"sqlite+aiosqlite:///{self.resolved_data_dir() / 'phronesis.db'}"

    def resolved_data_dir(self) -> Path:
        if self.data_dir is not None:
            return self.data_dir
        from platformdirs import user_data_dir

        return Path(user_data_dir("phronesis", appauthor=False))

    def masked(self) -> dict[str, Any]:
        """Effective settings as plain data with every secret masked, for ``config show``."""
        data = self.model_dump(mode="json")
        data["api"]["keys"] = {_mask(k): tenant for k, tenant in self.api.keys.items()}
        data["database"]["url"] = mask_url(self.database_url())
        if self.proactive.broker_url:
            data["proactive"]["broker_url"] = mask_url(self.proactive.broker_url)
        return data


def _mask(secret: str) -> str:
    """A key as ``config show`` prints it: its first characters and a fingerprint (six hex digits of
    its SHA-256), so two keys never print alike (the masks of ``sk-acme…`` and ``sk-bolt…`` collided
    and one tenant's key vanished from the listing) and the key itself cannot be read back."""
    fingerprint = hashlib.sha256(secret.encode()).hexdigest()[:6]
    return f"{secret[:3]}…{fingerprint}" if len(secret) > 12 else f"…{fingerprint}"


def mask_url(url: str) -> str:
    """Hide a password in ``scheme://user:password@host``."""
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    credentials, _, host = rest.rpartition("@")
    user, colon, _password = credentials.partition(":")
    return f"{scheme}://{user}{':******' if colon else ''}@{host}"


def _variable_name(loc: tuple[int | str, ...]) -> str:
    parts = [str(p) for p in loc if not isinstance(p, int)]
    if len(parts) >= 2:
        for alias, target in SEED_ALIASES.items():
            if target == (parts[0], parts[1]) and alias in _seed_alias_values(Path(".env")):
                return alias
    return ENV_PREFIX + NESTED_DELIMITER.join(p.upper() for p in parts[:2])


def load_settings(warn_unknown: bool = True, /, **overrides: Any) -> Settings:
    """Build ``Settings``; an invalid value raises ``ConfigurationError`` naming the variable and
    what was expected (one line), and an unknown ``PHRONESIS_*`` variable is warned about once,
    with the closest valid name."""
    if warn_unknown:
        warn_unknown_variables()
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        problems = "; ".join(
            f"{_variable_name(err['loc'])}: {validation_message(err)}" for err in exc.errors(include_url=False)
        )
        raise ConfigurationError(f"invalid configuration: {problems}") from None
    except SettingsError as exc:  # a JSON-valued variable that is not JSON (pydantic-settings decodes it first)
        raise ConfigurationError(f"invalid configuration: {_undecodable(exc)}") from None


def _environment() -> dict[str, str]:
    """``PHRONESIS_*`` variables from ``.env`` and the environment (which wins)."""
    return {k: v for k, v in _variables(Path(".env")).items() if k.upper().startswith(ENV_PREFIX)}


def _json_valued(annotation: Any) -> bool:
    """Whether pydantic-settings reads this field's variable as JSON (a model, dict, list, set or tuple)."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return any(_json_valued(a) for a in args)
    if typing.get_origin(annotation) is Annotated:
        return _json_valued(args[0])
    origin = typing.get_origin(annotation) or annotation
    return isinstance(origin, type) and (issubclass(origin, BaseModel) or origin in (dict, list, set, tuple))


_EXAMPLES = {dict: 'a JSON object, e.g. {"key": "value"}', list: 'a JSON list, e.g. ["a", "b"]'}


def _undecodable(error: SettingsError) -> str:
    """Which variable could not be decoded as JSON, and what it should look like."""
    variables = setting_variables()
    for name, value in sorted(_environment().items()):
        target = variables.get(name.upper())
        if target is None or not _json_valued(target):
            continue
        try:
            json.loads(value)
        except json.JSONDecodeError as problem:
            origin = typing.get_origin(target) or target
            expected = next((e for kind, e in _EXAMPLES.items() if origin is kind), "JSON")
            return f"{name}: expected {expected}; got {value[:40]!r} ({problem.msg} at column {problem.colno})"
    return str(error)


def setting_variables() -> dict[str, Any]:
    """Every ``PHRONESIS_*`` variable a setting reads, with the type it holds."""
    names: dict[str, Any] = {}
    for section, field in Settings.model_fields.items():
        names[f"{ENV_PREFIX}{section.upper()}"] = field.annotation
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            for name, sub in annotation.model_fields.items():
                names[f"{ENV_PREFIX}{section.upper()}{NESTED_DELIMITER}{name.upper()}"] = sub.annotation
    return names


_OTHER_VARIABLES = frozenset({"PHRONESIS_TEST_DATABASE_URL", "PHRONESIS_URL", "PHRONESIS_API_KEY"})
"""Read by the test suite, or by the client and the CLI to reach a running server
(``phronesis.client``, ``cli.remote``), not by a server setting."""
_warned: set[str] = set()


UNSUPPORTED_SEED_VARIABLES: Mapping[str, str] = {
    "LEARNING_OUTCOME_TIMEOUT_SEC": "GLADyS's outcome watcher is not built yet (README, Roadmap)",
}
"""Variables a seed defines that no phronesis setting reads yet, and why: set, they get a warning."""


def warn_unknown_variables() -> None:
    """Warn once per process about each ``PHRONESIS_*`` variable no setting reads, and each seed
    variable phronesis does not support."""
    for name, why in UNSUPPORTED_SEED_VARIABLES.items():
        if name in _variables(Path(".env")) and name not in _warned:
            _warned.add(name)
            log.warning("%s is not supported and is ignored: %s", name, why)
    valid = setting_variables()
    for name in sorted(_environment()):
        upper = name.upper()
        if upper in valid or upper in _OTHER_VARIABLES or upper in _warned:
            continue
        _warned.add(upper)
        # compared without the prefix every name shares, which would make anything look close
        suffixes = [v.removeprefix(ENV_PREFIX) for v in valid]
        closest = difflib.get_close_matches(upper.removeprefix(ENV_PREFIX), suffixes, n=1, cutoff=0.75)
        hint = f"; did you mean {ENV_PREFIX}{closest[0]}?" if closest else " (see `phronesis config show`)"
        log.warning("%s is not a phronesis setting and is ignored%s", name, hint)

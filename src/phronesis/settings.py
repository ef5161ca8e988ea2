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
from pydantic import BaseModel, Field, SecretStr, ValidationError
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
)

from phronesis.admission.settings import AdmissionSettings
from phronesis.embeddings.settings import EmbeddingSettings
from phronesis.exceptions import ConfigurationError, validation_message
from phronesis.executive.settings import ExecutiveSettings
from phronesis.heuristics.settings import HeuristicSettings
from phronesis.learning.settings import LearningSettings
from phronesis.llm.settings import LLMSettings
from phronesis.proactive.settings import ProactiveSettings
from phronesis.routing.settings import RoutingSettings
from phronesis.schema import Schema
from phronesis.settings_parts import OutboundSettings
from phronesis.storage.settings import DatabaseSettings, IndexSettings

__all__ = ["SEED_ALIASES", "Settings", "load_settings", "mask_url", "setting_variables", "warn_unknown_variables"]

log = logging.getLogger("phronesis.settings")

ENV_PREFIX = "PHRONESIS_"
NESTED_DELIMITER = "__"




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
    """The address ``phronesis serve`` listens on: loopback unless you put a proxy in front."""
    port: int = Field(default=8000, ge=0, le=65535)
    """The port ``phronesis serve`` listens on."""
    keys: dict[str, str] = Field(default_factory=dict)
    """Bearer API key → tenant. JSON in the environment: ``PHRONESIS_API__KEYS='{"sk-…":"acme"}'``."""
    dev_mode: bool = False
    """Allow requests without a key, from 127.0.0.1 only, as ``dev_tenant``. Said loudly at start-up."""
    dev_tenant: str = "default"
    """The tenant a development server (``--dev``, no API keys) acts for."""
    max_body_bytes: int = Field(default=10 * 1024 * 1024, ge=1024)
    """The largest request body taken; a larger one is a 413, read no further."""
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
    """Heuristics one tenant may store (None: no limit); past it a create is a 403 naming the quota."""
    documents: int | None = Field(default=None, ge=0)
    """Knowledge-base documents one tenant may store (None: no limit)."""
    runs: int | None = Field(default=None, ge=0)
    """Agent runs one tenant may store (None: no limit)."""
    sessions: int | None = Field(default=None, ge=0)
    """Routing sessions one tenant may hold (None: no limit)."""
    users: int | None = Field(default=None, ge=0)
    """Proactive users one tenant may have (None: no limit)."""
    signals: int | None = Field(default=None, ge=0)
    """Proactive signals one tenant may store (None: no limit)."""
    tools: int | None = Field(default=None, ge=0)
    """Routing tools one tenant may register (None: no limit)."""
    refresh_s: float = Field(default=10.0, ge=0.0, le=3600.0)
    """How long a process trusts its count of a tenant's rows before reading it again (0: every time)."""


class AuditSettings(Schema):
    retention_days: float = Field(default=30.0, gt=0.0)
    """Decision records older than this are purged (the dashboard's hourly rollups are kept)."""
    rollup_interval_s: float = Field(default=600.0, ge=0.0, le=86_400.0)
    """How often the server rolls up finished hours for the dashboard, for every tenant with new
    records (0: only when a page asks, which makes a first view over months of records slow)."""


class GladysSettings(Schema):
    """The GLADyS adapter (``phronesis grpc``): where GLADyS and phronesis mean different things by the
    same field, which meaning it answers with (docs/gladys.md)."""

    learner: Literal["orchestrator", "phronesis"] = "orchestrator"
    """Who turns what follows a fire into learning signals in a GLADyS deployment. ``orchestrator``
    (GLADyS's own learning module sends them through ``UpdateHeuristicConfidence``): ``phronesis grpc``
    runs with ``learning.implicit_signals`` and ``executive.observe_on_decide`` off, so no undo, ignore
    or timeout is counted twice. ``phronesis``: the orchestrator's learning is off and phronesis's
    seed-001 learner does it."""
    unset_magnitude: float = Field(default=1.0, gt=0.0, le=10.0, allow_inf_nan=False)
    """The weight of an ``UpdateHeuristicConfidence`` that sends no magnitude (proto3 sends 0 for
    unset). GLADyS's memory reads it as a full signal, 1.0, the default here. phronesis's own binary
    rating (``ProvideFeedback``, ``POST /v1/feedback``) weighs ``learning.explicit_magnitude`` (0.8, as
    GLADyS's orchestrator sends its explicit feedback); set 0.8 to read an unset magnitude that way."""
    accept_fallback: bool = False
    """``ProcessEvent``'s ``accepted`` on a decision that answered nothing (the LLM unavailable, a
    rejected or fallback decision). False (phronesis's meaning): ``accepted`` is true only when a
    heuristic fired or the LLM answered. True (GLADyS's executive's): accepted whenever the event was
    taken. Either way the reason is in ``error_message``."""


class OtelSettings(Schema):
    """OpenTelemetry tracing (``phronesis.telemetry``; the ``otel`` extra): a span per decision."""

    enabled: bool = False
    """Whether every decision record is also an OpenTelemetry span (``pip install 'phronesis[otel]'``)."""
    exporter: Literal["otlp", "console"] = "otlp"
    """Where spans go when the process has no tracer provider of its own: ``otlp`` (the standard
    ``OTEL_EXPORTER_OTLP_ENDPOINT``, named in the start-up log) or ``console``."""
    service_name: str = Field(default="phronesis", min_length=1, max_length=128)
    """The ``service.name`` the spans are sent with."""


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
    """The least severe log lines written (``debug``, ``info``, ``warning``, ``error``)."""
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
    gladys: GladysSettings = Field(default_factory=GladysSettings)

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
    "LEARNING_OUTCOME_TIMEOUT_SEC": "GLADyS's outcome watcher is not built yet (docs/roadmap.md)",
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

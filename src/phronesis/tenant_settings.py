"""A tenant's applied settings: what "Apply" on a replay or ``phronesis tune --apply`` changes,
recorded as a decision of its own.

A server's settings are its configuration; a tenant may have a tuned value of a few of them
(``TUNABLE``): a number, or for a choice (``CHOICES``: the executive's strategy) one of its
names. The decision points read the tenant's value from the database at each decision, never
from memory, so a value applied by the CLI, by another API worker or from the dashboard
holds for the very next decision everywhere (many processes, one database). A value of None
puts the configured one back.

Each change is a ``setting`` decision record in the same transaction as the change: what it
was, what it became, and why (the note, e.g. the replay behind it). The row is locked while it
is changed, so two concurrent changes are recorded one after the other, each with the value it
really replaced.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Annotated, Any, Literal, get_args

from pydantic import ConfigDict, Field, PlainValidator, WithJsonSchema, field_serializer
from sqlalchemy import bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.admission import tunables as admission_tunables
from phronesis.audit.models import NewDecisionRecord
from phronesis.audit.repository import DecisionRecordRepository
from phronesis.clock import Clock
from phronesis.exceptions import InvalidInputError
from phronesis.executive import tunables as executive_tunables
from phronesis.ids import new_id
from phronesis.proactive import tunables as proactive_tunables
from phronesis.routing import tunables as routing_tunables
from phronesis.schema import Schema
from phronesis.settings import Settings
from phronesis.storage.database import Database
from phronesis.storage.inserts import insert_or_ignore
from phronesis.storage.tables import tenant_settings
from phronesis.tuning import Applied, SettingValue, Tunable

__all__ = [
    "BOUNDS",
    "CHOICES",
    "TUNABLE",
    "WHOLE",
    "Applied",
    "AppliedSetting",
    "ApplyIn",
    "SettingName",
    "GivenValue",
    "SettingValue",
    "TenantSettings",
    "out_of_order",
    "out_of_range",
    "shown",
]


def _given(value: Any) -> SettingValue:
    """A value as given: a finite number (``true`` is not 1), or a name of at most 64 characters.
    Which one a setting takes is ``out_of_range``'s to say, naming the setting."""
    if isinstance(value, str):
        if len(value) > 64:
            raise ValueError("a setting's value is a number or a name of at most 64 characters")
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("a setting's value is a number, or for a choice one of its names")
    if not math.isfinite(value):
        raise ValueError("a setting's value must be a finite number")
    return float(value)


GivenValue = Annotated[
    SettingValue,
    PlainValidator(_given),
    WithJsonSchema({"anyOf": [{"type": "number"}, {"type": "string", "maxLength": 64}]}),
]
"""A setting's value at a boundary (Apply, a replay): one error at ``value``, not one per kind."""

SettingName = Literal[
    "executive.heuristic_threshold",
    "executive.personality_bias",
    "executive.strategy",
    "executive.urgency.threshold_reduction",
    "executive.urgency.immediate_min",
    "executive.urgency.soon_min",
    "executive.urgency.reasonable_similarity",
    "executive.urgency.high_similarity",
    "routing.cascade_threshold",
    "routing.high_threshold",
    "routing.low_threshold",
    "admission.low_similarity",
    "admission.duplicate_threshold",
    "proactive.score_threshold.new",
    "proactive.score_threshold.building",
    "proactive.score_threshold.established",
    "proactive.score_threshold.deep",
    "proactive.weight.relevance",
    "proactive.weight.timing",
    "proactive.weight.urgency",
    "proactive.daily_cap.new",
    "proactive.daily_cap.building",
    "proactive.daily_cap.established",
    "proactive.daily_cap.deep",
]
TUNABLE: dict[str, Tunable] = {
    tunable.name: tunable
    for tunables in (executive_tunables, routing_tunables, admission_tunables, proactive_tunables)
    for tunable in tunables.TUNABLES
}
"""The settings a tenant may tune, each declared by its decision point (its ``tunables`` module):
the ones a replay can evaluate (``replay``)."""
assert list(TUNABLE) == list(get_args(SettingName)), "SettingName lists every decision point's tunables, in order"
BOUNDS: dict[str, tuple[float, float]] = {
    name: tunable.bounds for name, tunable in TUNABLE.items() if not tunable.choices
}
WHOLE = frozenset(name for name, tunable in TUNABLE.items() if tunable.whole)
"""Settings that count something: a whole number."""
CHOICES: dict[str, tuple[str, ...]] = {name: tunable.choices for name, tunable in TUNABLE.items() if tunable.choices}
"""Settings that take one of a few names, not a number: the executive's decision strategy (seed
000's heuristic_first, its urgency-tiered design, or its always-LLM baseline)."""


def shown(value: SettingValue) -> str:
    """A value as a person reads it: a daily cap of 2 reads 2, not 2.0; a name as it is."""
    return value if isinstance(value, str) else f"{value:g}"


ORDERED: tuple[tuple[str, str], ...] = (
    *admission_tunables.ORDERED,
    *routing_tunables.ORDERED,
    *executive_tunables.ORDERED,
    *proactive_tunables.ORDERED,
)
"""Pairs a tenant's values must keep in order, lower first, as the configuration does (neither a
duplicate threshold below the pre-filter's nor a soon tier above the immediate one)."""


def out_of_order(name: str, value: float, paired: Mapping[str, float]) -> str | None:
    """Why ``value`` cannot be ``name``'s beside the tenant's current values of the settings it is
    paired with (``ORDERED``; ``paired``: ``TenantSettings.paired``), or None: the one check Apply,
    a replay's value and tune's grid make (never an "Apply 0.3" for a high threshold below
    the low one)."""
    for low, high in ORDERED:
        if name == low and high in paired and value > paired[high]:
            return f"{name} must not be above {high} ({paired[high]:g}), not {value:g}"
        if name == high and low in paired and value < paired[low]:
            return f"{name} must not be below {low} ({paired[low]:g}), not {value:g}"
    return None


def out_of_range(name: str, value: SettingValue) -> str | None:
    """Why ``value`` cannot be ``name``'s (``BOUNDS``, ``WHOLE``, ``CHOICES``), or None: the one
    check Apply and a replay's value both make."""
    if name in CHOICES:
        if value not in CHOICES[name]:
            return f"{name} takes one of {', '.join(CHOICES[name])}, not {str(value)[:60]!r}"
        return None
    low, high = BOUNDS[name]
    span = f"from {shown(low)} to {shown(high)}"
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            hint = next((f" (did you mean {other}?)" for other, names in CHOICES.items() if value in names), "")
            return f"{name} takes a number {span}, not {value[:60]!r}{hint}"
        # JSON "0.6": looks in range, but is text (a bare range refusal would read as nonsense)
        return f"{name} takes a number {span}: send {value[:60]} as a JSON number, not a string"
    if not low <= value <= high:
        return f"{name} takes a value {span}, not {shown(value)}"
    if name in WHOLE and value != int(value):
        return f"{name} takes a whole number, not {shown(value)}"
    return None


t = tenant_settings.c
# built once: it runs at every executive decision, and building a statement costs more Python
# than running its cached compiled form (the executive's profile)
_READ = select(t.name, t.value, t.choice).where(
    t.tenant == bindparam("w_tenant"), t.name.like(bindparam("w_pattern"), escape="/")
)


def _escaped(prefix: str) -> str:
    """``prefix`` for LIKE with ``/`` as the escape character (as ``startswith(autoescape=True)``)."""
    return prefix.replace("/", "//").replace("%", "/%").replace("_", "/_")


class ApplyIn(Schema):
    model_config = ConfigDict(extra="forbid")

    value: GivenValue | None
    """The tenant's value: a JSON number (``true`` is not 1) within the setting's range (most are
    0 to 1; ``executive.heuristic_threshold`` 0.3 to 0.95, ``executive.personality_bias`` -0.5 to
    0.5, ``proactive.score_threshold.*`` 0 to 10, ``proactive.daily_cap.*`` a whole number 0 to
    50), or for ``executive.strategy`` one of ``heuristic_first``, ``always_llm``,
    ``urgency_tiered``. Null puts the server's configured value back."""
    note: str | None = Field(default=None, max_length=1000)
    """Why: kept on the setting's decision record (e.g. the replay or tuning behind it)."""


class AppliedSetting(Schema):
    name: SettingName
    """The setting's dotted name (e.g. ``proactive.daily_cap.new``)."""
    value: SettingValue
    """What decisions use now: the tenant's value, else the configured one."""
    configured: SettingValue
    """The server's configured value: what decisions use when the tenant has none of its own."""
    applied: SettingValue | None
    """The tenant's own value (None: it uses the configured one)."""
    decision_id: str | None
    """The decision record of the last change (``GET /v1/decisions/{id}``)."""
    updated_at: datetime | None
    """When the tenant's value was last applied or reset (UTC). None: never changed."""
    warning: str | None = None
    """Why the value, though taken, will not do what it says on this server (``always_llm`` where no
    LLM is configured); None when nothing stands in its way."""

    @field_serializer("value", "configured", "applied")
    def _whole(self, value: SettingValue | None) -> SettingValue | int | None:
        """A count reads as one: a daily cap of 2, not 2.0."""
        if self.name in WHOLE and isinstance(value, float) and value.is_integer():
            return int(value)
        return value


class TenantSettings:
    def __init__(
        self,
        settings: Settings,
        database: Database,
        decisions: DecisionRecordRepository,
        clock: Clock,
        *,
        llm_configured: bool = True,
    ) -> None:
        self._settings = settings
        self._llm_configured = llm_configured
        self._db = database
        self._decisions = decisions
        self._clock = clock

    def configured(self, name: str) -> SettingValue:
        return TUNABLE[name].of(self._settings)

    async def current(self, tenant: str, name: str) -> SettingValue:
        """The value a decision uses now: one point read by primary key (``Database.read``: on a
        SQLite file the reader lane, elsewhere the read pool), on every decision's path."""
        query = select(t.value, t.choice).where(t.tenant == tenant, t.name == name)
        rows = await self._db.read(query, {})
        applied = _applied(*rows[0]) if rows else None
        return self.configured(name) if applied is None else applied

    async def value(self, tenant: str, name: str) -> float:
        """A number's current value (``current``)."""
        value = await self.current(tenant, name)
        assert not isinstance(value, str), name
        return float(value)

    async def applied(self, tenant: str, prefix: str, *, connection: AsyncConnection | None = None) -> dict[str, float]:
        """The tenant's own numbers named ``prefix…``, in one read (the proactive cycle reads every
        trust level's threshold on the connection it loads users on)."""
        return (await self.read(tenant, prefix, connection=connection)).numbers

    async def read(self, tenant: str, prefix: str, *, connection: AsyncConnection | None = None) -> Applied:
        """The tenant's own values named ``prefix…``, numbers and choices, in one read (the
        executive reads its threshold, bias, cut-offs and strategy at each decision)."""
        parameters = {"w_tenant": tenant, "w_pattern": _escaped(prefix) + "%"}
        rows: Sequence[Any] = (
            (await connection.execute(_READ, parameters)).all()
            if connection is not None
            else await self._db.read(_READ, parameters)
        )
        return Applied(
            numbers={str(name): float(value) for name, value, _ in rows if value is not None},
            choices={str(name): str(choice) for name, _, choice in rows if choice is not None},
        )

    async def list(self, tenant: str) -> list[AppliedSetting]:
        query = select(t.name, t.value, t.choice, t.decision_id, t.updated_at).where(t.tenant == tenant)
        async with self._db.connect() as conn:
            rows = {row.name: row for row in await conn.execute(query)}
        out = []
        for name in get_args(SettingName):
            row = rows.get(name)
            configured = self.configured(name)
            applied = None if row is None else _applied(row.value, row.choice)
            out.append(
                AppliedSetting(
                    name=name,
                    value=configured if applied is None else applied,
                    configured=configured,
                    applied=applied,
                    decision_id=None if row is None else row.decision_id,
                    updated_at=None if row is None else row.updated_at,
                )
            )
        return out

    async def paired(self, tenant: str, name: str) -> dict[str, float]:
        """The tenant's current values of the settings ``name`` must keep in order with (``ORDERED``)."""
        others = [b if a == name else a for a, b in ORDERED if name in (a, b)]
        return {other: await self.value(tenant, other) for other in others}

    async def _check_order(self, tenant: str, name: SettingName, value: float | None) -> None:
        if name in CHOICES:
            return
        paired = await self.paired(tenant, name)
        configured = self.configured(name)
        assert not isinstance(configured, str), name
        problem = out_of_order(name, configured if value is None else value, paired)
        if problem is not None and value is None:  # a reset: say which other value stands in the way
            others = " or ".join(paired)
            problem = f"{name} cannot go back to its configured value: {problem}; change or reset {others} first"
        if problem is not None:
            raise InvalidInputError("value", problem)

    async def apply(self, tenant: str, name: SettingName, change: ApplyIn) -> AppliedSetting:
        """Set (or, with None, clear) the tenant's value and record the change, in one transaction."""
        problem = None if change.value is None else out_of_range(name, change.value)
        if problem is None and name == "executive.strategy" and change.value is not None:
            problem = self._strategy_assigned()
        if problem is not None:
            raise InvalidInputError("value", problem)
        number = None if isinstance(change.value, str) else change.value
        await self._check_order(tenant, name, number)
        now = self._clock.now()
        decision_id = new_id()
        configured = self.configured(name)
        warning = self._warning(name, change.value)
        async with self._db.transaction() as conn:
            standing = (await conn.execute(select(t.value, t.choice, t.decision_id, t.updated_at).where(
                t.tenant == tenant, t.name == name
            ))).one_or_none()  # fmt: skip
            if change.value is None and (standing is None or _applied(standing.value, standing.choice) is None):
                # a reset of a value the tenant never had changes nothing: nothing to record
                return AppliedSetting(
                    name=name,
                    value=configured,
                    configured=configured,
                    applied=None,
                    decision_id=None if standing is None else standing.decision_id,
                    updated_at=None if standing is None else standing.updated_at,
                )
            seed = insert_or_ignore(self._db.dialect, tenant_settings)
            await conn.execute(seed.values(tenant=tenant, name=name, value=None, decision_id=None, updated_at=now))
            # locked until commit: a concurrent change waits, then reads what this one wrote
            locked = select(t.value, t.choice).where(t.tenant == tenant, t.name == name).with_for_update()
            old = _applied(*(await conn.execute(locked)).one())
            choice = change.value if isinstance(change.value, str) else None
            await conn.execute(
                update(tenant_settings)
                .where(t.tenant == tenant, t.name == name)
                .values(value=number, choice=choice, decision_id=decision_id, updated_at=now)
            )
            before = configured if old is None else old
            after = configured if change.value is None else change.value
            record = NewDecisionRecord(
                id=decision_id,
                tenant=tenant,
                kind="setting",
                subject_id=name,
                path="apply" if change.value is not None else "reset",
                action=f"{name}={shown(after)}",
                inputs={"name": name, "old": old, "new": change.value, "configured": configured, "note": change.note},
                reason=(change.note or "")[:256] or None,
                llm_calls=0,
                attributes={"before": before, "after": after},
            )
            await self._decisions.write(record, into=conn)
        return AppliedSetting(
            name=name,
            value=after,
            configured=configured,
            applied=change.value,
            decision_id=decision_id,
            updated_at=now,
            warning=warning,
        )

    def _warning(self, name: str, value: SettingValue | None) -> str | None:
        if name == "executive.strategy" and value == "always_llm" and not self._llm_configured:
            return (
                "this server has no LLM configured (PHRONESIS_LLM__SPEC=none): with always_llm every event is "
                "rejected (llm_unavailable) until one is"
            )
        return None

    def _strategy_assigned(self) -> str | None:
        """Why a tenant's strategy would not hold, or None: an A/B experiment assigns every event's
        strategy on this server, so a tenant's own would be listed as applied and never used."""
        arms = self._settings.executive.experiment_arms
        if not arms:
            return None
        return (
            f"executive.strategy: this server's A/B experiment assigns each event's strategy "
            f"({', '.join(sorted(arms))}); a tenant's own strategy applies only on a server without one"
        )


def _applied(value: float | None, choice: str | None) -> SettingValue | None:
    """A row's applied value: its number, or its choice (None: the configured one)."""
    return choice if choice is not None else None if value is None else float(value)

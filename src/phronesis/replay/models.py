"""A replay's question and its answer, at the API and CLI boundary."""

from __future__ import annotations

import math
from typing import Any, Literal, Self, get_args

from pydantic import (
    ConfigDict,
    Field,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)

from phronesis.clock import Instant
from phronesis.schema import Schema
from phronesis.tenant_settings import CHOICES, TUNABLE, GivenValue, SettingName, SettingValue, out_of_range

__all__ = [
    "PARAMETERS",
    "as_asked",
    "Asked",
    "Change",
    "DecisionPoint",
    "Estimate",
    "Parameter",
    "ReplayIn",
    "ReplayReport",
    "WeightedEstimate",
    "setting_of",
]

DecisionPoint = Literal["executive", "routing", "admission", "proactive"]
Parameter = Literal[
    "heuristic_threshold",
    "personality_bias",
    "strategy",
    "urgency.threshold_reduction",
    "urgency.immediate_min",
    "urgency.soon_min",
    "urgency.reasonable_similarity",
    "urgency.high_similarity",
    "cascade_threshold",
    "high_threshold",
    "low_threshold",
    "low_similarity",
    "duplicate_threshold",
    "score_threshold.new",
    "score_threshold.building",
    "score_threshold.established",
    "score_threshold.deep",
    "weight.relevance",
    "weight.timing",
    "weight.urgency",
    "daily_cap.new",
    "daily_cap.building",
    "daily_cap.established",
    "daily_cap.deep",
]
PARAMETERS: dict[str, tuple[Parameter, ...]] = {
    "executive": (
        "heuristic_threshold",
        "personality_bias",
        "strategy",
        "urgency.threshold_reduction",
        "urgency.immediate_min",
        "urgency.soon_min",
        "urgency.reasonable_similarity",
        "urgency.high_similarity",
    ),
    "routing": ("cascade_threshold", "high_threshold", "low_threshold"),
    "admission": ("low_similarity", "duplicate_threshold"),
    "proactive": (
        "score_threshold.new",
        "score_threshold.building",
        "score_threshold.established",
        "score_threshold.deep",
        "weight.relevance",
        "weight.timing",
        "weight.urgency",
        "daily_cap.new",
        "daily_cap.building",
        "daily_cap.established",
        "daily_cap.deep",
    ),
}
"""The settings each decision point's replay varies, its default first: seed 000's base
threshold, default personality bias (F-24), decision strategy and urgency cut-offs, seed 002's cascade threshold and
confidence bands, seed 003's low similarity and duplicate thresholds, seed 004's score threshold and
daily cap of one trust level and each weight of its composite. Each is the tenant setting
``{decision_point}.{parameter}``."""


assert set(get_args(Parameter)) == {p for names in PARAMETERS.values() for p in names}


def setting_of(point: str, parameter: str) -> SettingName:
    """The tenant setting (``tenant_settings``) a replay of ``parameter`` at ``point`` varies."""
    name = f"{point}.{parameter}"
    assert name in TUNABLE, name
    return name  # type: ignore[return-value]


class Asked(Schema):
    """A decision point and one of its parameters (``PARAMETERS``; omitted: the first)."""

    model_config = ConfigDict(extra="forbid")

    decision_point: DecisionPoint
    """Whose logged decisions to replay: ``executive`` (fire a heuristic or ask the LLM),
    ``routing`` (how a user's query is handled), ``admission`` (whether an agent run is added to
    memory, skipped, replaces one or is merged) or ``proactive`` (whether to message a user)."""
    parameter: Parameter | None = Field(default=None, json_schema_extra={"examples": ["score_threshold.new"]})
    """The setting to vary, one of the decision point's own: executive ``heuristic_threshold``,
    ``personality_bias``, ``strategy`` or an ``urgency.*`` cut-off; routing ``cascade_threshold``,
    ``high_threshold`` or ``low_threshold``; admission ``low_similarity`` or
    ``duplicate_threshold``; proactive a trust level's ``score_threshold.*`` or ``daily_cap.*``, or a
    ``weight.*``. Omitted: the decision point's first."""

    @field_validator("parameter", mode="wrap")
    @classmethod
    def _its_parameter(cls, parameter: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
        """Named against the decision point's own parameters, not every point's (not an
        error listing all seven)."""
        point = info.data.get("decision_point")
        if parameter is not None and point is not None and parameter not in PARAMETERS[point]:
            raise ValueError(f"{point} replays {' or '.join(PARAMETERS[point])}, not {str(parameter)[:60]!r}")
        return handler(parameter)

    @property
    def setting(self) -> SettingName:
        return setting_of(self.decision_point, self.parameter or PARAMETERS[self.decision_point][0])

    @model_validator(mode="after")
    def _default_parameter(self) -> Self:
        if self.parameter is None:
            self.parameter = PARAMETERS[self.decision_point][0]
        return self


class ReplayIn(Asked):
    value: GivenValue
    """The value to replay with: a number in the setting's range, the same as ``PUT
    /v1/settings/{name}`` takes (most are 0 to 1; a proactive score threshold 0 to 10, a daily cap
    a whole number 0 to 50), or for the executive's strategy one of ``heuristic_first``,
    ``always_llm``, ``urgency_tiered``."""
    since: Instant | None = None
    """The window's start (None: ``days`` back from now)."""
    days: float = Field(default=30.0, gt=0.0, le=365.0)
    """Without ``since``: replay the decisions logged in the last this many days (up to 365)."""

    @property
    def number(self) -> float:
        """The value of a numeric setting (a choice's is its name, ``value``)."""
        if isinstance(self.value, str):
            raise TypeError(f"{self.setting} takes a name, not a number")
        return self.value

    @field_validator("value")
    @classmethod
    def _in_range(cls, value: float | str, info: ValidationInfo) -> float | str:
        point = info.data.get("decision_point")
        if point is None or "parameter" not in info.data:
            return value  # the point or parameter is refused already
        setting = setting_of(point, info.data["parameter"] or PARAMETERS[point][0])
        value = as_asked(setting, value)
        # seed 000 F-24 clamps the executive's threshold: nothing outside decides differently
        problem = out_of_range(setting, value)
        if problem is not None:
            raise ValueError(problem)
        return value


def as_asked(setting: str, value: SettingValue) -> SettingValue:
    """A form's or a query's "0.8" as the number a numeric setting takes (a name stays a name;
    text that is no number is kept for ``out_of_range`` to say a number is wanted)."""
    if not isinstance(value, str) or setting in CHOICES:
        return value
    try:
        number = float(value)
    except ValueError:
        return value
    if not math.isfinite(number):
        raise ValueError("value must be a finite number")
    return number


class Change(Schema):
    logged: str
    """What the logged decisions did, as a short label (e.g. ``local: RETRIEVE``, a heuristic and
    its action, ``silent``)."""
    replayed: str
    """What they would do under the replayed value, as a short label; ``?`` where it cannot be
    known from the logs (e.g. what the LLM would have answered)."""
    decisions: int
    """How many logged decisions changed this way."""
    examples: list[str] = Field(default_factory=list)
    """The first few of these decisions' ids, to look up (``GET /v1/decisions/{id}``, the
    dashboard's decision page)."""


class Estimate(Schema):
    successes: int
    """Of ``covered``, the decisions that were right (succeeded)."""
    covered: int
    """Decisions whose outcome under this policy the logs establish."""
    rate: float | None
    """``successes`` / ``covered``, 0–1; None when nothing is covered."""
    interval: tuple[float, float] | None
    """95 % Wilson score interval of ``rate``."""


class WeightedEstimate(Schema):
    """An inverse-propensity estimate (``replay.estimators``)."""

    method: Literal["ips", "snips"]
    """``ips`` (inverse propensity scoring) or ``snips`` (its self-normalised form)."""
    rate: float | None
    """The estimated success rate of the replayed policy; None when no logged decision made the
    replayed choice. SNIPS stays within [0, 1]; IPS can exceed 1 on few decisions."""
    interval: tuple[float, float] | None
    """95 % normal-approximation interval, clipped to [0, 1]."""
    decisions: int
    """Rated decisions where the logging policy could have made the replayed choice."""
    coverage: float
    """``decisions`` / rated decisions."""


class ReplayReport(Schema):
    decision_point: str
    """The decision point replayed."""
    parameter: str
    """The setting varied (the decision point's first when the request left it out)."""
    current: SettingValue
    """The value the tenant's decisions use now (its applied one, else for the duplicate threshold
    a calibrated one, else the configured one), which the replayed value is compared with."""
    value: SettingValue
    """A number, or the strategy's name (``executive.strategy``)."""
    decisions: int
    """Logged decisions the setting applies to: heuristic-first executive decisions (an urgency
    cut-off: the urgency-tiered ones that kept their cut-offs; the strategy: the executive
    decisions whose strategy the tenant's setting chose, not an event's own or an A/B arm's);
    cascade-mode routing where the local router ran (a band threshold: the routed turns that
    recorded what their bands read); admissions that met similar runs (the duplicate threshold:
    those past the pre-filter that kept what it needs); the trust level's proactive cycles past
    the pre-filter (a weight: every level's, those recorded with their candidates' parts and
    weights; a daily cap: the level's cycles that reached the cap's check)."""
    changed: int
    """Of ``decisions``, those the replayed value would decide differently."""
    changes: list[Change]
    """The kinds of change, most frequent first (at most 20)."""
    llm_calls_logged: int
    """LLM requests the logged decisions sent."""
    llm_calls_replayed: int
    """LLM requests the same decisions would send under the replayed value (estimated where a
    decision would take another path: e.g. one request for a turn the LLM would now decide)."""
    current_success: Estimate
    """The logged policy on the rated decisions."""
    replayed_success: Estimate
    """The replayed policy where the logs establish its outcome (direct method)."""
    coverage: float
    """``replayed_success.covered`` / the decisions whose outcome the estimate needs (the rated
    decisions; for proactive, the cycles the replayed setting sends in): the share it covers."""
    ips: WeightedEstimate | None
    """Inverse-propensity estimate of the replayed policy's success; None where the logs carry no
    propensities (no explored decisions)."""
    snips: WeightedEstimate | None
    """Inverse-propensity estimates, where the logs carry propensities (explored decisions)."""
    weighting: str
    """What the weighted estimates rest on, or why there are none."""
    handoffs_logged: int | None = None
    """Routing's band thresholds: turns the logged decisions handed to a person (ESCALATE), of
    the turns the logs settle. None for other settings."""
    handoffs_replayed: int | None = None
    """Routing's band thresholds: turns handed to a person (ESCALATE), logged and replayed, of the
    turns the logs settle."""
    handoffs_unsettled: int | None = None
    """Routing's band thresholds: turns the logs cannot settle (they would search again where the
    logged turn did not): neither counted as handed off nor not."""
    sent_logged: int | None = None
    """Proactive only: messages the logged cycles sent. None for other decision points."""
    sent_replayed: int | None = None
    """Proactive only: messages sent then, and under the replayed setting."""

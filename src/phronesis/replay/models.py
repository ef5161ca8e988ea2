"""A replay's question and its answer, at the API and CLI boundary."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from phronesis.clock import Instant
from phronesis.executive.config import THRESHOLD_BOUNDS

__all__ = ["PARAMETERS", "Change", "DecisionPoint", "Estimate", "ReplayIn", "ReplayReport", "WeightedEstimate"]

DecisionPoint = Literal["executive", "routing"]
PARAMETERS: dict[str, str] = {"executive": "heuristic_threshold", "routing": "cascade_threshold"}
"""The setting each decision point's replay varies (seed 000's base threshold; seed 002's
cascade threshold). Admission's and proactive's are on the roadmap."""


class ReplayIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    decision_point: DecisionPoint
    parameter: Literal["heuristic_threshold", "cascade_threshold"] | None = None
    """The decision point's setting (``PARAMETERS``); given, it must be that one."""
    value: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
    since: Instant | None = None
    """The window's start (None: ``days`` back from now)."""
    days: float = Field(default=30.0, gt=0.0, le=365.0)

    @field_validator("parameter")
    @classmethod
    def _its_parameter(cls, parameter: str | None, info: ValidationInfo) -> str | None:
        point = info.data.get("decision_point")
        if parameter is not None and point is not None and parameter != PARAMETERS[point]:
            raise ValueError(f"{point} replays {PARAMETERS[point]}, not {parameter}")
        return parameter

    @field_validator("value")
    @classmethod
    def _in_range(cls, value: float, info: ValidationInfo) -> float:
        if info.data.get("decision_point") == "executive":
            low, high = THRESHOLD_BOUNDS  # seed 000 F-24: nothing outside decides differently
            if not low <= value <= high:
                raise ValueError(f"the executive's threshold is clamped to [{low}, {high}], not {value}")
        return value

    @model_validator(mode="after")
    def _default_parameter(self) -> ReplayIn:
        if self.parameter is None:
            self.parameter = PARAMETERS[self.decision_point]  # type: ignore[assignment]
        return self


class Change(BaseModel):
    logged: str
    replayed: str
    decisions: int


class Estimate(BaseModel):
    successes: int
    covered: int
    """Decisions whose outcome under this policy the logs establish."""
    rate: float | None
    interval: tuple[float, float] | None
    """95 % Wilson score interval of ``rate``."""


class WeightedEstimate(BaseModel):
    """An inverse-propensity estimate (``replay.estimators``)."""

    method: Literal["ips", "snips"]
    rate: float | None
    interval: tuple[float, float] | None
    """95 % normal-approximation interval, clipped to [0, 1]."""
    decisions: int
    """Rated decisions where the logging policy could have made the replayed choice."""
    coverage: float
    """``decisions`` / rated decisions."""


class ReplayReport(BaseModel):
    decision_point: str
    parameter: str
    current: float
    value: float
    decisions: int
    """Logged decisions the setting applies to (heuristic-first executive decisions; cascade-mode
    routing where the local router ran)."""
    changed: int
    changes: list[Change]
    llm_calls_logged: int
    llm_calls_replayed: int
    current_success: Estimate
    """The logged policy on the rated decisions."""
    replayed_success: Estimate
    """The replayed policy where the logs establish its outcome (direct method)."""
    coverage: float
    """``replayed_success.covered`` / rated decisions: the share of the rated decisions the estimate covers."""
    ips: WeightedEstimate | None
    snips: WeightedEstimate | None
    """Inverse-propensity estimates, where the logs carry propensities (explored decisions)."""
    weighting: str
    """What the weighted estimates rest on, or why there are none."""

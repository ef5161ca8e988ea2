"""A replay's question and its answer, at the API and CLI boundary."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from phronesis.clock import Instant

__all__ = ["Change", "Estimate", "ReplayIn", "ReplayReport"]


class ReplayIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    decision_point: Literal["routing"]
    """Routing first; the executive, admission and proactive settings are on the roadmap."""
    parameter: Literal["cascade_threshold"]
    value: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
    since: Instant | None = None
    """The window's start (None: ``days`` back from now)."""
    days: float = Field(default=30.0, gt=0.0, le=365.0)


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


class ReplayReport(BaseModel):
    decision_point: str
    parameter: str
    current: float
    value: float
    decisions: int
    """Logged decisions the setting applies to (cascade-mode routing where the local router ran)."""
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
    ips: str
    """Why there is no inverse-propensity estimate (or its figure, when the logs carry propensities)."""

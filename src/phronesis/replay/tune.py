"""``phronesis tune``: the setting the logged decisions argue for, with the replay table behind it
(issue 25).

The objective is stated, not hidden: *the most LLM calls avoided, subject to an estimated
success no lower than the current setting's, on at least ``min_coverage`` of the rated
decisions*. For proactive, where a threshold costs no call, *the most messages sent, subject
to an estimated engagement no lower than the current one, on at least ``min_coverage`` of the
messages it sends*. Each candidate value is replayed on the same logged decisions (read once); its
success is the best estimate the logs support (SNIPS where the logs carry propensities, else
the direct estimate). A value whose estimate covers too little is not proposed: what the logs
do not establish is not guessed. With nothing better, the proposal is to keep the current value.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from phronesis.replay.models import Asked, ReplayReport
from phronesis.replay.run import current_value, load, replay_loaded
from phronesis.tenant_settings import BOUNDS, CHOICES, WHOLE, SettingName, SettingValue, out_of_order

if TYPE_CHECKING:
    from phronesis.engine import Engine

__all__ = ["TuneIn", "TuneReport", "TuneRow", "best_estimate", "grid", "tune"]


def grid(setting: SettingName) -> tuple[SettingValue, ...]:
    """The values tried: the setting's whole range (``BOUNDS``: seed 000 clamps a threshold to
    [0.3, 0.95], F-24, so nothing outside it can be replayed), in steps of 0.05, or 0.5 for seed
    004's 0-10 scores; a count (a daily cap) in whole numbers; a choice (the strategy), each name."""
    if setting in CHOICES:
        return CHOICES[setting]
    low, high = BOUNDS[setting]
    if setting in WHOLE:  # a count: every whole number up to 20 a day
        return tuple(float(n) for n in range(int(low), min(int(high), 20) + 1))
    step = 0.05 if high - low <= 1.0 else 0.5
    return tuple(round(low + step * i, 2) for i in range(round((high - low) / step) + 1))


Method = Literal["snips", "direct"]


class TuneIn(Asked):
    days: float = Field(default=30.0, gt=0.0, le=365.0)
    min_coverage: float = Field(default=0.8, ge=0.0, le=1.0, allow_inf_nan=False)
    """The least share of the rated decisions an estimate must cover for its value to be proposed."""


class TuneRow(BaseModel):
    value: SettingValue
    changed: int
    llm_calls: int
    llm_calls_avoided: int
    """Against the logged decisions (negative: more calls)."""
    sent: int | None = None
    """Proactive: messages it would send."""
    handoffs: int | None = None
    """Routing's bands: turns it would hand to a person (``ReplayReport.handoffs_replayed``)."""
    unsettled: int | None = None
    """Routing's bands: turns the logs cannot settle at this value (``handoffs_unsettled``)."""
    success: float | None
    interval: tuple[float, float] | None
    method: Method
    coverage: float
    eligible: bool
    """Meets the objective's constraints (success and coverage)."""


class TuneReport(BaseModel):
    decision_point: str
    parameter: str
    setting: SettingName
    """The tenant setting to apply it to (``PUT /v1/settings/{setting}``)."""
    current: SettingValue
    proposed: SettingValue
    objective: str
    decisions: int
    rated: int
    current_success: float | None
    met: bool
    """Some value meets the objective's constraints; else the proposal is to keep the current one."""
    weighting: str
    """What the estimates rest on, and what the logs cannot show (the replay's ``weighting``)."""
    rows: list[TuneRow]


def best_estimate(
    report: ReplayReport,
) -> tuple[float | None, tuple[float, float] | None, Literal["snips", "direct"], float]:
    """The estimate a proposal rests on: SNIPS where there is one, else the direct estimate."""
    if report.snips is not None and report.snips.rate is not None:
        return report.snips.rate, report.snips.interval, "snips", report.snips.coverage
    return report.replayed_success.rate, report.replayed_success.interval, "direct", report.coverage


async def tune(engine: Engine, tenant: str, body: TuneIn) -> TuneReport:
    since = engine.clock.now() - timedelta(days=body.days)
    point, parameter = body.decision_point, str(body.parameter)
    current = await current_value(engine, tenant, point, parameter)
    values = await _values(engine, tenant, body.setting, current)
    logged = await load(engine, tenant, point, parameter, since)
    reports = [replay_loaded(point, parameter, logged, value, current=current) for value in values]
    baseline = reports[values.index(current)]
    now = baseline.current_success.rate
    rows = []
    for report in reports:
        success, interval, method, coverage = best_estimate(report)
        eligible = success is not None and now is not None and success >= now and coverage >= body.min_coverage
        # the bands: as many of all turns settled as of the rated ones, so fewer hand-offs are not
        # fewer only because the turns that would search again went uncounted
        unsettled = report.handoffs_unsettled or 0
        eligible = eligible and unsettled <= (1 - body.min_coverage) * report.decisions
        rows.append(
            TuneRow(
                value=report.value,
                changed=report.changed,
                llm_calls=report.llm_calls_replayed,
                llm_calls_avoided=report.llm_calls_logged - report.llm_calls_replayed,
                sent=report.sent_replayed,
                handoffs=report.handoffs_replayed,
                unsettled=report.handoffs_unsettled,
                success=success,
                interval=interval,
                method=method,
                coverage=coverage,
                eligible=eligible,
            )
        )
    # most gained (calls avoided; proactive: messages sent); among equals, the best estimated
    # success (a trial: with no LLM calls at stake, a better duplicate threshold was never
    # proposed), then the value nearest the current one (the smallest change)
    meeting = [row for row in rows if row.eligible]
    best = max(meeting, key=lambda row: (_gain(row), row.success or 0.0, -_distance(row.value, current)), default=None)
    return TuneReport(
        decision_point=point,
        parameter=parameter,
        setting=body.setting,
        current=current,
        proposed=current if best is None else best.value,
        met=best is not None,
        weighting=baseline.weighting,
        objective=(
            f"{_objective(point, baseline)}, subject to estimated {SUCCESS[point]} ≥ the current "
            f"({'–' if now is None else f'{now:.1%}'}) on ≥ {body.min_coverage:.0%} of {NEEDED[point]}"
        ),
        decisions=baseline.decisions,
        rated=baseline.current_success.covered,
        current_success=now,
        rows=rows,
    )


async def _values(engine: Engine, tenant: str, setting: SettingName, current: SettingValue) -> list[SettingValue]:
    """The grid, and the current value: each strategy; or the numbers Apply would take beside the
    tenant's other settings (low ≤ high)."""
    if isinstance(current, str):
        return [*grid(setting)]
    paired = await engine.tenant_settings.paired(tenant, setting)
    numbers = {v for v in grid(setting) if isinstance(v, float) and out_of_order(setting, v, paired) is None}
    return sorted({*numbers, current})


def _distance(value: SettingValue, current: SettingValue) -> float:
    """How big a change ``value`` is: a number's distance; another strategy is a change of 1."""
    if isinstance(value, str) or isinstance(current, str):
        return float(value != current)
    return abs(value - current)


def _gain(row: TuneRow) -> int:
    if row.handoffs is not None:  # the bands: the fewer turns handed to a person, the better
        return -row.handoffs
    return row.sent if row.sent is not None else row.llm_calls_avoided


def _objective(point: str, report: ReplayReport) -> str:
    # the bands change no LLM call: a trial saw "most LLM calls avoided" and every row at 0
    return "fewest turns handed to a person" if report.handoffs_replayed is not None else OBJECTIVES[point]


POINTS = ("executive", "routing", "admission")
OBJECTIVES = {point: "most LLM calls avoided" for point in POINTS} | {"proactive": "most messages sent"}
SUCCESS = {point: "success" for point in POINTS} | {"proactive": "engagement"}
NEEDED = {point: "the rated decisions" for point in POINTS} | {"proactive": "its sends"}

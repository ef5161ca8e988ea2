"""``phronesis tune``: the setting the logged decisions argue for, with the replay table behind it.

The objective is stated, not hidden: *the most LLM calls avoided, subject to an estimated
success no lower than the current setting's, on at least ``min_coverage`` of the rated
decisions*. For proactive, where a threshold costs no call, *the most messages sent, subject
to an estimated engagement no lower than the current one, on at least ``min_coverage`` of the
messages it sends*. Each candidate value is replayed on the same logged decisions (read once); its
success is the best estimate the logs support (SNIPS where the logs carry propensities, else
the direct estimate). A value whose estimate covers too little is not proposed: what the logs
do not establish is not guessed. A value that gains no more than the current one is proposed only
when its whole 95 % interval lies above today's success. With nothing better, the proposal is to
keep the current value.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from phronesis.replay.models import Asked, ReplayReport
from phronesis.replay.run import current_value, load, replay_loaded
from phronesis.schema import Schema
from phronesis.tenant_settings import BOUNDS, CHOICES, WHOLE, SettingName, SettingValue, out_of_order

if TYPE_CHECKING:
    from phronesis.engine import Engine

__all__ = ["TuneIn", "TuneReport", "TuneRow", "best_estimate", "grid", "proposal", "tune"]


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
    """Replay the decisions logged in the last this many days (up to 365)."""
    min_coverage: float = Field(default=0.8, ge=0.0, le=1.0, allow_inf_nan=False)
    """The least share of the rated decisions an estimate must cover for its value to be proposed."""


class TuneRow(Schema):
    value: SettingValue
    """The value tried: a number, or a strategy's name."""
    changed: int
    """Logged decisions this value would decide differently."""
    llm_calls: int
    """LLM requests the logged decisions would send at this value."""
    llm_calls_avoided: int
    """Against the logged decisions (negative: more calls)."""
    sent: int | None = None
    """Proactive: messages it would send."""
    handoffs: int | None = None
    """Routing's bands: turns it would hand to a person (``ReplayReport.handoffs_replayed``)."""
    unsettled: int | None = None
    """Routing's bands: turns the logs cannot settle at this value (``handoffs_unsettled``)."""
    success: float | None
    """Estimated success rate at this value, 0–1 (proactive: engagement); None when the logs
    cannot estimate it."""
    interval: tuple[float, float] | None
    """The 95 % interval of ``success``; None without an estimate."""
    method: Method
    """Which estimate ``success`` is: ``snips`` where the logs carry propensities, else ``direct``."""
    coverage: float
    """The share, 0–1, of the decisions the estimate needs (the rated ones; proactive: the
    messages it would send) that it covers."""
    eligible: bool
    """Meets the objective's constraints (success and coverage)."""
    why_not: str | None = None
    """The constraint it fails, in words (None: it meets them)."""


class TuneReport(Schema):
    decision_point: str
    """The decision point tuned."""
    parameter: str
    """The setting tuned (the decision point's first when the request left it out)."""
    setting: SettingName
    """The tenant setting to apply it to (``PUT /v1/settings/{setting}``)."""
    current: SettingValue
    """The value the tenant's decisions use now."""
    proposed: SettingValue
    """The value proposed: of those meeting the constraints, the one that gains the most (LLM calls
    avoided; proactive: messages sent; the routing bands: fewest hand-offs), or one shown more
    successful (its whole 95 % interval above today's success); else ``current``."""
    objective: str
    """The objective and its constraints, in words (with today's success and the minimum coverage)."""
    decisions: int
    """Logged decisions in the window that the setting applies to (``ReplayReport.decisions``)."""
    rated: int
    """Of ``decisions``, those rated (with a known outcome): what ``current_success`` is measured on."""
    current_success: float | None
    """The share, 0–1, of the rated decisions that were right under the current value (proactive:
    engagement); None with no rated decision."""
    met: bool
    """Some value meets the objective's constraints; else the proposal is to keep the current one."""
    weighting: str
    """What the estimates rest on, and what the logs cannot show (the replay's ``weighting``)."""
    rows: list[TuneRow]
    """Every value tried, replayed on the same logged decisions: numbers in ascending order (the
    current value among them), or each strategy."""


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
        why_not = _why_not(report, success, coverage, now, body.min_coverage, SUCCESS[point])
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
                eligible=why_not is None,
                why_not=why_not,
            )
        )
    best = proposal(rows, current, now)
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


def _why_not(
    report: ReplayReport,
    success: float | None,
    coverage: float,
    now: float | None,
    min_coverage: float,
    what: str,
) -> str | None:
    """Which of the objective's constraints a value fails, in words (None: it meets them)."""
    if now is None:
        return f"no rated decision: the current {what} is unknown"
    if success is None:
        return f"{what} not estimable from the logs"
    if success < now:
        return f"{what} {success:.1%} < now {now:.1%}"
    if coverage < min_coverage:
        return f"coverage {coverage:.0%} < {min_coverage:.0%}"
    # the bands: as many of all turns settled as of the rated ones, so fewer hand-offs are not
    # fewer only because the turns that would search again went uncounted
    unsettled = report.handoffs_unsettled or 0
    if unsettled > (1 - min_coverage) * report.decisions:
        return f"{unsettled} of {report.decisions} turns not settled > {1 - min_coverage:.0%}"
    return None


def proposal(rows: list[TuneRow], current: SettingValue, now: float | None) -> TuneRow | None:
    """The value to propose, or None (keep the current one). The most gained (calls avoided;
    proactive: messages sent; the bands: the fewest hand-offs), then the best estimated success,
    then the smallest change. A value that gains no more than the current one must be *shown*
    better (its whole 95 % interval above today's success), not only estimated better: a point
    estimate whose interval holds today's rate must not move a tenant to another strategy."""
    meeting = [row for row in rows if row.eligible]
    here = next((row for row in rows if row.value == current), None)
    ahead = [row for row in meeting if here is None or _gain(row) > _gain(here)]
    if not ahead:
        ahead = [
            row
            for row in meeting
            if row.value != current and row.interval is not None and now is not None and row.interval[0] > now
        ]
    best = max(ahead, key=lambda row: (_gain(row), row.success or 0.0, -_distance(row.value, current)), default=None)
    if best is None and here is not None and here.eligible:
        return here
    return best


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
    # the bands change no LLM call: "most LLM calls avoided" would put every row at 0
    return "fewest turns handed to a person" if report.handoffs_replayed is not None else OBJECTIVES[point]


POINTS = ("executive", "routing", "admission")
OBJECTIVES = {point: "most LLM calls avoided" for point in POINTS} | {"proactive": "most messages sent"}
SUCCESS = {point: "success" for point in POINTS} | {"proactive": "engagement"}
NEEDED = {point: "the rated decisions" for point in POINTS} | {"proactive": "its sends"}

"""The A/B report: per strategy, what happened and how users rated it (``phronesis executive report``).

Outcome rates get Wilson score intervals: with the handful of ratings an arm has in its
first days, a bare "80 % positive" over 5 ratings would be read as a result.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pydantic import Field

from phronesis.audit.models import OutcomeSummary
from phronesis.schema import Schema

__all__ = ["StrategyReport", "build_report", "wilson_interval"]


def wilson_interval(successes: float, trials: float, *, z: float = 1.96) -> tuple[float, float] | None:
    """95 % Wilson score interval of a proportion; None with no trials. Counts may be effective
    (weighted) ones: ``replay.estimators`` bounds its weighted estimates with them."""
    if trials <= 0:
        return None
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    # At p = 0 or 1 the bound equals p exactly; rounding must not leave the estimate outside.
    low = 0.0 if successes == 0 else max(0.0, min(p, centre - half))
    high = 1.0 if successes == trials else min(1.0, max(p, centre + half))
    return low, high


class StrategyReport(Schema):
    strategy: str
    """The strategy (``heuristic_first``, ``always_llm``, ``urgency_tiered``); ``(none)`` for
    decisions recorded without one."""
    decisions: int = 0
    """Real-time executive decisions this strategy made (sleep-cycle re-evaluations are not counted)."""
    by_path: dict[str, int] = Field(default_factory=dict)
    """Those decisions by path: ``heuristic``, ``llm``, ``fallback``, ``rejected``."""
    llm_calls: int = 0
    """Requests sent to the LLM, counted by each decision (``decision_records.llm_calls``)."""
    uncounted: int = 0
    """Decisions recorded before calls were counted: their calls are not in ``llm_calls``."""
    tokens: int = 0
    """LLM tokens used, prompt and completion together."""
    mean_predicted_success: float | None = None
    """Mean predicted success, 0–1, of the decisions that answered (heuristic and LLM paths); None
    when there were none."""
    positive: int = 0
    """Decisions whose feedback was positive."""
    negative: int = 0
    """Decisions whose feedback was negative."""
    neutral: int = 0
    """Decisions whose feedback was neutral (not counted in ``positive_rate``)."""
    positive_rate: float | None = None
    """positive / (positive + negative), 0–1; None with no positive or negative feedback."""
    positive_rate_ci: tuple[float, float] | None = None
    """95 % Wilson score interval of ``positive_rate``; None with no positive or negative feedback."""


def build_report(rows: Sequence[OutcomeSummary]) -> list[StrategyReport]:
    reports: dict[str, StrategyReport] = {}
    weighted: dict[str, tuple[float, int]] = {}
    for row in rows:
        name = row.strategy or "(none)"
        report = reports.setdefault(name, StrategyReport(strategy=name))
        report.decisions += row.count
        report.by_path[row.path] = report.by_path.get(row.path, 0) + row.count
        report.llm_calls += row.llm_calls
        report.uncounted += row.uncounted
        report.tokens += row.prompt_tokens + row.completion_tokens
        if row.path in ("heuristic", "llm") and row.mean_confidence is not None:
            total, count = weighted.get(name, (0.0, 0))
            weighted[name] = (total + row.mean_confidence * row.count, count + row.count)
        if row.outcome in ("positive", "negative", "neutral"):
            setattr(report, row.outcome, getattr(report, row.outcome) + row.count)
    for name, report in reports.items():
        total, count = weighted.get(name, (0.0, 0))
        report.mean_predicted_success = total / count if count else None
        rated = report.positive + report.negative
        report.positive_rate = report.positive / rated if rated else None
        report.positive_rate_ci = wilson_interval(report.positive, rated)
    return sorted(reports.values(), key=lambda r: r.strategy)

"""The A/B report's arithmetic: paths, LLM calls, mean predicted success, outcome rates with Wilson intervals."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from phronesis.audit.models import OutcomeSummary
from phronesis.executive.report import build_report, wilson_interval


def row(
    strategy: str, path: str, outcome: str | None, count: int, mean: float | None = 0.6, calls: int = 0
) -> OutcomeSummary:
    return OutcomeSummary(
        llm_calls=calls,
        strategy=strategy,
        path=path,
        outcome=outcome,
        count=count,
        mean_confidence=mean,
        prompt_tokens=10 * count,
        completion_tokens=count,
    )


def test_report_per_strategy() -> None:
    rows = [
        row("heuristic_first", "heuristic", "positive", 8, 0.8),
        row("heuristic_first", "heuristic", "negative", 2, 0.8),
        row("heuristic_first", "llm", None, 10, 0.5, calls=23),  # counted: some predictions were retried
        row("heuristic_first", "rejected", None, 5, 0.0),
        row("always_llm", "fallback", None, 3, 0.0, calls=3),
    ]
    first, second = build_report(rows)
    assert first.strategy == "always_llm" and first.llm_calls == 3 and first.mean_predicted_success is None
    assert second.decisions == 25 and second.by_path == {"heuristic": 10, "llm": 10, "rejected": 5}
    assert second.llm_calls == 23  # what the records counted, not 2 per LLM-path decision
    assert second.mean_predicted_success == pytest.approx(0.65)
    assert (second.positive, second.negative, second.positive_rate) == (8, 2, 0.8)
    low, high = second.positive_rate_ci or (0, 0)
    assert low < 0.8 < high and low == pytest.approx(0.49, abs=0.01)


@given(st.integers(0, 500), st.integers(1, 500))
def test_the_wilson_interval_contains_the_estimate_and_stays_in_0_1(successes: int, trials: int) -> None:
    successes = min(successes, trials)
    low, high = wilson_interval(successes, trials) or (0.0, 0.0)
    assert 0.0 <= low <= successes / trials <= high <= 1.0


def test_no_ratings_no_interval() -> None:
    assert wilson_interval(0, 0) is None

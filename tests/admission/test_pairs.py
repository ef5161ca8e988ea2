"""Calibrating the duplicate threshold on labelled pairs (MRPC's format)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from phronesis.admission.pairs import calibrate_threshold, pair_metrics, read_pairs
from phronesis.engine import Engine
from phronesis.exceptions import InvalidInputError

HEADER = "label\tid1\tid2\tsentence1\tsentence2\n"


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "pairs.tsv"
    path.write_text(HEADER + body, encoding="utf-8")
    return path


def test_pairs_are_read_and_the_header_skipped(tmp_path: Path) -> None:
    pairs = read_pairs(write(tmp_path, "1\t1\t2\ta cat sat\ta cat sat down\n0\t3\t4\tdogs bark\tstocks fell\n"))
    assert [(p.duplicate, p.first) for p in pairs] == [(True, "a cat sat"), (False, "dogs bark")]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("1\t1\t2\tonly four fields\n", "expected 5"),
        ("yes\t1\t2\ta\tb\n", "label must be 0 or 1"),
        ("1\t1\t2\t\tb\n", "both sentences"),
        ("", "no pairs"),
    ],
)
def test_a_malformed_file_names_the_line(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message) as error:
        read_pairs(write(tmp_path, body))
    if body:
        assert error.value.field.endswith("pairs.tsv:2")


def test_metrics_count_each_cell() -> None:
    metrics = pair_metrics(np.array([0.9, 0.8, 0.4, 0.3]), [True, False, True, False], 0.5)
    assert (metrics["true_positives"], metrics["false_positives"], metrics["false_negatives"]) == (1, 1, 1)
    assert metrics["precision"] == metrics["recall"] == metrics["f1"] == metrics["accuracy"] == 0.5


def test_the_threshold_separates_separable_pairs() -> None:
    threshold = calibrate_threshold(np.array([0.95, 0.9, 0.85, 0.6, 0.5]), [True, True, True, False, False])
    assert 0.6 < threshold < 0.85
    assert pair_metrics(np.array([0.95, 0.9, 0.85, 0.6, 0.5]), [True] * 3 + [False] * 2, threshold)["accuracy"] == 1


def test_a_precision_floor_trades_recall_for_fewer_false_duplicates() -> None:
    scores = np.array([0.99, 0.97, 0.9, 0.88, 0.86, 0.8])
    truth = [True, True, False, True, True, False]
    strict = calibrate_threshold(scores, truth, objective="precision", min_precision=1.0)
    assert pair_metrics(scores, truth, strict)["precision"] == 1.0
    assert strict > calibrate_threshold(scores, truth, objective="f1")


def test_one_class_only_cannot_be_calibrated() -> None:
    with pytest.raises(InvalidInputError, match="both"):
        calibrate_threshold(np.array([0.9, 0.8]), [True, True])


def test_adjacent_scores_still_separate() -> None:
    """No float lies between two adjacent ones: the cut must not round onto the lower score."""
    scores = np.array([-1.0, np.nextafter(-1.0, 0.0)])
    threshold = calibrate_threshold(scores, [False, True])
    assert pair_metrics(scores, [False, True], threshold)["accuracy"] == 1.0


@given(
    st.lists(st.tuples(st.floats(-1, 1), st.booleans()), min_size=2, max_size=40).filter(
        lambda rows: len({t for _, t in rows}) == 2
    ),
    st.sampled_from(["accuracy", "f1"]),
)
def test_no_other_threshold_scores_better(rows: list[tuple[float, bool]], objective: str) -> None:
    scores = np.array([s for s, _ in rows])
    truth = [t for _, t in rows]
    chosen = pair_metrics(scores, truth, calibrate_threshold(scores, truth, objective=objective))  # type: ignore[arg-type]
    for candidate in list(scores) + [2.0]:
        assert pair_metrics(scores, truth, candidate)[objective] <= chosen[objective] + 1e-9


@given(
    st.lists(st.tuples(st.floats(-1, 1), st.booleans(), st.integers(1, 4)), min_size=2, max_size=30).filter(
        lambda rows: len({t for _, t, _ in rows}) == 2
    ),
    st.sampled_from(["accuracy", "f1", "precision"]),
)
def test_a_pair_of_weight_n_counts_as_n_copies(rows: list[tuple[float, bool, int]], objective: str) -> None:
    """Feedback pairs weigh more than a file's (``calibrate --feedback-weight``): exactly as repeats."""
    weighted = calibrate_threshold(
        np.array([s for s, _, _ in rows]),
        [t for _, t, _ in rows],
        objective=objective,  # type: ignore[arg-type]
        min_precision=0.6,
        weights=[w for _, _, w in rows],
    )
    repeated = [(s, t) for s, t, w in rows for _ in range(w)]
    copies = calibrate_threshold(
        np.array([s for s, _ in repeated]),
        [t for _, t in repeated],
        objective=objective,  # type: ignore[arg-type]
        min_precision=0.6,
    )
    assert weighted == copies


async def test_calibrate_saves_the_tenants_threshold_and_evaluate_uses_it(
    sqlite_engine: Engine, tmp_path: Path
) -> None:
    pairs = read_pairs(
        write(
            tmp_path,
            "1\t1\t2\tthe agent generated the schema\tthe agent generated a schema\n"
            "1\t3\t4\tread orders and wrote the file\tread the orders and wrote the file\n"
            "0\t5\t6\ttranslate the guide to french\tbook a meeting with sales\n"
            "0\t7\t8\tthe stock market fell today\tmy cat sleeps all day\n",
        )
    )
    result = await sqlite_engine.admission.calibrate("t", pairs)
    assert result["saved"] and result["accuracy"] == 1.0
    assert await sqlite_engine.admission.calibrations.duplicate_threshold("t") == result["threshold"]
    evaluated = await sqlite_engine.admission.evaluate_pairs("t", pairs)
    assert (evaluated["threshold_source"], evaluated["threshold"], evaluated["f1"]) == (
        "calibrated",
        result["threshold"],
        1.0,
    )
    default = await sqlite_engine.admission.evaluate_pairs("other", pairs)
    assert (default["threshold_source"], default["threshold"]) == ("settings", 0.95)

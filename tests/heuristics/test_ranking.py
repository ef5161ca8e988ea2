"""Similarity-dominant ranking with confidence as tiebreak (seed 000)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from phronesis.heuristics.ranking import rank_similarity_dominant

Item = tuple[str, float, float]  # name, similarity, confidence


def rank(items: list[Item], epsilon: float = 0.02) -> list[str]:
    ranked = rank_similarity_dominant(items, similarity=lambda i: i[1], confidence=lambda i: i[2], epsilon=epsilon)
    return [name for name, _, _ in ranked]


def test_seed_example_high_match_low_confidence_beats_low_match_high_confidence() -> None:
    assert rank([("b", 0.6, 0.7), ("a", 0.9, 0.3)]) == ["a", "b"]


def test_near_equal_similarities_are_decided_by_confidence() -> None:
    assert rank([("a", 0.90, 0.3), ("b", 0.89, 0.8), ("c", 0.70, 0.99)]) == ["b", "a", "c"]


def test_epsilon_zero_is_pure_similarity_order() -> None:
    assert rank([("a", 0.90, 0.3), ("b", 0.89, 0.8)], epsilon=0.0) == ["a", "b"]


@given(
    st.lists(
        st.tuples(st.text(max_size=3), st.floats(0, 1, allow_nan=False), st.floats(0, 1, allow_nan=False)),
        max_size=30,
    ),
    st.floats(0, 0.2),
)
def test_ranking_is_a_permutation_that_never_inverts_beyond_epsilon(items: list[Item], epsilon: float) -> None:
    ranked = rank_similarity_dominant(items, similarity=lambda i: i[1], confidence=lambda i: i[2], epsilon=epsilon)
    assert sorted(ranked) == sorted(items)
    for earlier, later in zip(ranked, ranked[1:], strict=False):
        assert later[1] <= earlier[1] + epsilon + 1e-12

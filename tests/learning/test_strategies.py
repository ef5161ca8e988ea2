"""One contract every learning strategy passes (river-style), plus what sets each apart."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from phronesis.exceptions import ConfigurationError
from phronesis.heuristics.confidence import BetaEvidence, DiscountedBetaEvidence, Evidence, EvidenceModel
from phronesis.learning import (
    BayesianStrategy,
    BayesianStrategyConfig,
    DiscountedBetaStrategy,
    FireRecord,
    LearningStrategy,
    SignalType,
    create_learning_strategy,
)
from phronesis.learning.settings import LearningSettings

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
FIRES = [
    FireRecord("f1", "h1", "e1", "sensor", NOW),
    FireRecord("f2", "h2", "e2", "sensor", NOW),
]


@pytest.fixture(params=["bayesian", "discounted_beta", "calibrated"])
def strategy(request: pytest.FixtureRequest) -> LearningStrategy:
    return create_learning_strategy(name=request.param)


class TestContract:
    def test_is_a_learning_strategy(self, strategy: LearningStrategy) -> None:
        assert isinstance(strategy, LearningStrategy)
        assert strategy.undo_window_sec == 30.0
        assert {"strategy", "undo_window_sec", "ignored_threshold"} <= set(strategy.config)

    def test_explicit_feedback_weighs_less_than_implicit(self, strategy: LearningStrategy) -> None:
        signal = strategy.interpret_explicit_feedback("e1", "h1", True, "thumbs")
        assert signal.signal_type is SignalType.POSITIVE and signal.magnitude == 0.8
        assert signal.source == "user_explicit" and signal.metadata == {"original_source": "thumbs"}
        assert strategy.interpret_explicit_feedback("e1", "h1", False, "dev").source == "dev"
        timeout = strategy.interpret_timeout("h1", "e1", 31.5)
        assert timeout.magnitude == 1.0 > signal.magnitude

    def test_timeout_is_positive(self, strategy: LearningStrategy) -> None:
        signal = strategy.interpret_timeout("h1", "e1", 31.5)
        assert (signal.signal_type, signal.source, signal.metadata) == (
            SignalType.POSITIVE,
            "implicit_timeout",
            {"elapsed_seconds": 31.5},
        )

    def test_an_undo_is_negative_for_every_recent_fire(self, strategy: LearningStrategy) -> None:
        signals = strategy.interpret_event_for_undo("undo that " + "x" * 200, FIRES)
        assert [(s.heuristic_id, s.event_id, s.signal_type) for s in signals] == [
            ("h1", "e1", SignalType.NEGATIVE),
            ("h2", "e2", SignalType.NEGATIVE),
        ]
        assert all(s.source == "implicit_undo" and len(s.metadata["undo_text"]) == 100 for s in signals)
        assert strategy.interpret_event_for_undo("what is the cancellation policy", FIRES) == []
        assert strategy.interpret_event_for_undo("undo", []) == []

    @pytest.mark.parametrize("count", [1, 2, 3, 4])
    def test_an_ignore_is_never_evidence_for_success(self, strategy: LearningStrategy, count: int) -> None:
        signal = strategy.interpret_ignore("h1", count)
        assert signal.signal_type is not SignalType.POSITIVE and signal.source == "implicit_ignored"
        assert signal.metadata == {"consecutive_count": count}

    def test_soft_signals_come_with_a_channel(self, strategy: LearningStrategy) -> None:
        """A strategy whose implicit signals are soft must say through which channel to weigh them."""
        signals = [
            strategy.interpret_timeout("h1", "e1", 31.0),
            strategy.interpret_ignore("h1", 1),
            *strategy.interpret_event_for_undo("undo that", FIRES),
            *strategy.interpret_event_for_confirmation("thanks", FIRES),
        ]
        assert all(signal.soft == (strategy.channel is not None) for signal in signals)
        assert not strategy.interpret_explicit_feedback("e1", "h1", True, "thumbs").soft  # ratings stay hard

    def test_evidence_moves_the_mean_the_right_way(self, strategy: LearningStrategy) -> None:
        start = Evidence(1.0, 1.0, 1.0, 1.0, NOW)
        up = strategy.evidence.add(start, positive=True, weight=1.0, now=NOW + timedelta(hours=1))
        down = strategy.evidence.add(start, positive=False, weight=1.0, now=NOW + timedelta(hours=1))
        assert down.mean < start.mean < up.mean
        back = strategy.evidence.remove(
            up, positive=True, weight=1.0, added_at=NOW + timedelta(hours=1), now=NOW + timedelta(hours=1)
        )
        assert back.mean == pytest.approx(start.mean)


@pytest.mark.parametrize(
    ("count", "expected", "magnitude"),
    [
        (1, SignalType.NEUTRAL, 0.0),
        (2, SignalType.NEUTRAL, 0.0),
        (3, SignalType.NEGATIVE, 1.0),
        (4, SignalType.NEGATIVE, 1.0),
    ],
)
@pytest.mark.parametrize("name", ["bayesian", "discounted_beta"])
def test_seed_ignores_turn_negative_at_the_threshold(
    name: str, count: int, expected: SignalType, magnitude: float
) -> None:
    signal = create_learning_strategy(name=name).interpret_ignore("h1", count)
    assert (signal.signal_type, signal.magnitude, signal.source) == (expected, magnitude, "implicit_ignored")


@pytest.mark.parametrize("count", [1, 2, 3])
def test_calibrated_weighs_every_ignore(count: int) -> None:
    signal = create_learning_strategy(name="calibrated").interpret_ignore("h1", count)
    assert (signal.signal_type, signal.magnitude, signal.soft) == (SignalType.NEGATIVE, 1.0, True)


def test_bayesian_evidence_never_fades() -> None:
    evidence = Evidence(11.0, 1.0, 1.0, 1.0, NOW)
    later = BetaEvidence().add(evidence, positive=False, weight=1.0, now=NOW + timedelta(days=365))
    assert (later.alpha, later.beta) == (11.0, 2.0)


def test_discounted_evidence_halves_above_the_prior() -> None:
    model = DiscountedBetaEvidence(half_life_s=86400.0)
    evidence = Evidence(11.0, 1.0, 1.0, 1.0, NOW)
    later = model.add(evidence, positive=False, weight=1.0, now=NOW + timedelta(days=1))
    assert later.alpha == pytest.approx(6.0) and later.beta == pytest.approx(2.0)
    # with no evidence for a long time it returns to its prior, not to 0.5
    forgotten = model.add(Evidence(50.0, 2.0, 3.0, 1.0, NOW), positive=True, weight=0.0, now=NOW + timedelta(days=60))
    assert forgotten.mean == pytest.approx(0.75, abs=1e-6)


@pytest.mark.parametrize(
    "model", [BetaEvidence(), DiscountedBetaEvidence(half_life_s=86400.0)], ids=["beta", "discounted"]
)
def test_evidence_taken_back_and_put_back_is_as_it_was(model: EvidenceModel) -> None:
    """Every evidence model: a soft outcome a rating took back, put back when the rating is withdrawn,
    leaves the evidence as if it had never been taken (at the moment it is put back)."""
    start = model.add(Evidence(1.0, 1.0, 1.0, 1.0, None), positive=True, weight=0.7, now=NOW)
    given = model.add(start, positive=False, weight=0.3, now=NOW)
    later = NOW + timedelta(hours=6)
    taken = model.remove(given, positive=True, weight=0.7, added_at=NOW, now=later)
    taken = model.remove(taken, positive=False, weight=0.3, added_at=NOW, now=later)
    back = model.restore(taken, positive=True, weight=0.7, added_at=NOW, now=later)
    back = model.restore(back, positive=False, weight=0.3, added_at=NOW, now=later)
    untouched = model.add(given, positive=True, weight=0.0, now=later)  # the same evidence, seen at ``later``
    assert (back.alpha, back.beta) == (pytest.approx(untouched.alpha), pytest.approx(untouched.beta))


def test_the_factory_reads_settings_and_refuses_unknown_names() -> None:
    strategy = create_learning_strategy(
        LearningSettings(strategy="discounted_beta", half_life_sec=3600, undo_window_sec=10)
    )
    assert isinstance(strategy, DiscountedBetaStrategy) and strategy.config["half_life_s"] == 3600
    assert strategy.undo_window_sec == 10
    with pytest.raises(ConfigurationError, match="bayesian, calibrated, discounted_beta"):
        create_learning_strategy(name="reinforcement")


def test_the_factory_builds_calibrated_from_settings() -> None:
    prior = {
        "implicit_timeout": (0.9, 0.1),
        "implicit_undo": (0.1, 0.9),
        "implicit_ignored": (0, 0),
        "user_implicit": (0, 0),
    }
    settings = LearningSettings(strategy="calibrated", channel_prior=prior, channel_prior_strength=4, half_life_sec=60)
    strategy = create_learning_strategy(settings)
    assert strategy.channel is not None
    assert strategy.channel.likelihoods("implicit_timeout") == pytest.approx((0.9, 0.1))
    assert strategy.config["channel_prior_strength"] == 4 and strategy.config["half_life_s"] == 60


def test_a_partial_channel_prior_keeps_the_other_outcomes_defaults() -> None:
    """Giving one outcome's likelihoods must not zero the others (silence would count as failure)."""
    from phronesis.heuristics.channel import DEFAULT_CHANNEL_PRIOR

    settings = LearningSettings(strategy="calibrated", channel_prior={"implicit_undo": (0.01, 0.5)})
    assert settings.channel_prior == {**DEFAULT_CHANNEL_PRIOR, "implicit_undo": (0.01, 0.5)}


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        (
            {"PHRONESIS_LEARNING__CHANNEL_PRIOR": '{"implicit_lol": [0.5, 0.5]}'},
            "PHRONESIS_LEARNING__CHANNEL_PRIOR: unknown",
        ),
        ({"PHRONESIS_LEARNING__CHANNEL_PRIOR_STRENGTH": "nan"}, "PHRONESIS_LEARNING__CHANNEL_PRIOR_STRENGTH"),
        ({"PHRONESIS_LEARNING__STRATEGY": "nonsense"}, "PHRONESIS_LEARNING__STRATEGY: unknown learning strategy"),
    ],
)
def test_bad_learning_settings_name_their_variable(
    monkeypatch: pytest.MonkeyPatch, variables: dict[str, str], message: str
) -> None:
    from phronesis.settings import load_settings

    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigurationError, match=message):
        load_settings()


def test_seed_environment_names_choose_the_strategy(monkeypatch: pytest.MonkeyPatch) -> None:
    from phronesis.settings import load_settings

    monkeypatch.setenv("LEARNING_STRATEGY", "discounted_beta")
    monkeypatch.setenv("LEARNING_UNDO_KEYWORDS", "oops, take it back")
    monkeypatch.setenv("LEARNING_IGNORED_THRESHOLD", "5")
    settings = load_settings().learning
    strategy = create_learning_strategy(settings)
    assert strategy.config["undo_keywords"] == ["oops", "take it back"] and strategy.config["ignored_threshold"] == 5
    assert strategy.interpret_event_for_undo("please take it back", FIRES)


def test_config_is_validated() -> None:
    with pytest.raises(ValueError):
        BayesianStrategyConfig(ignored_threshold=0)
    assert BayesianStrategy(BayesianStrategyConfig(ignored_threshold=2)).interpret_ignore("h", 2).magnitude == 1.0

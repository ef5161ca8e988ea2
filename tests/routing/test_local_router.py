"""The local router: calibrated probabilities, abstention, storage round trip, evaluation figures."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.exceptions import InvalidInputError
from phronesis.routing.calibration import choose_threshold, expected_calibration_error, fit_temperature, softmax
from phronesis.routing.decisions import Decision
from phronesis.routing.evaluation import evaluate_router
from phronesis.routing.exemplars import Exemplar, parse_exemplar_lines
from phronesis.routing.local_router import LocalRouter, RouterFitOptions
from tests.routing.conftest import exemplars, out_of_scope

OPTIONS = RouterFitOptions(lexical_width=2**10, holdout_fraction=0.34, knn_k=1, refit=True)


@pytest.fixture(params=["energy_knn", "maxp_knn"])
async def router(embedder: HashingEmbedder, request: pytest.FixtureRequest) -> LocalRouter:
    options = replace(OPTIONS, in_scope_score=request.param)
    return await LocalRouter.fit(exemplars(), embedder, oos=out_of_scope(), options=options)


async def test_labels_route_to_their_decisions_with_probabilities(
    router: LocalRouter, embedder: HashingEmbedder
) -> None:
    texts = ["how much does the pro plan cost", "book a meeting on friday", "thanks a lot"]
    predictions = await router.predict(texts, embedder, ambiguity_margin=0.1)
    assert [p.decision for p in predictions] == [Decision.RETRIEVE, Decision.USE_TOOL, Decision.REASON_ONLY]
    for p in predictions:
        assert 0.0 <= p.probability <= 1.0
        assert sum(p.decision_probabilities.values()) == pytest.approx(1.0, abs=1e-5)
        assert p.abstained is None


async def test_far_away_text_is_out_of_scope(router: LocalRouter, embedder: HashingEmbedder) -> None:
    [p] = await router.predict(["quantum chromodynamics lattice gauge theory"], embedder, ambiguity_margin=0.1)
    assert p.abstained == "out_of_scope"
    assert router.calibration["threshold_rule"] == "max_oos_recall_within_budget"


async def test_an_ambiguity_margin_of_one_makes_every_answer_ambiguous(
    router: LocalRouter, embedder: HashingEmbedder
) -> None:
    [p] = await router.predict(["how much does the pro plan cost"], embedder, ambiguity_margin=1.0)
    assert p.abstained == "ambiguous"


async def test_a_stored_router_predicts_like_the_fitted_one(router: LocalRouter, embedder: HashingEmbedder) -> None:
    restored = LocalRouter.restore(router.metadata(), router.weights())
    texts = ["book me a demo", "what is the weather", "price of plans"]
    a = await router.predict(texts, embedder, ambiguity_margin=0.1)
    b = await restored.predict(texts, embedder, ambiguity_margin=0.1)
    assert [x.label for x in a] == [y.label for y in b]
    assert [x.probability for x in a] == pytest.approx([y.probability for y in b], abs=1e-4)
    # exemplars are stored as float16: the neighbour part of the in-scope score moves a hair
    assert [x.support for x in a] == pytest.approx([y.support for y in b], abs=1e-2)
    assert restored.scoring.method == router.scoring.method


async def test_the_energy_score_is_a_share_centred_on_a_typical_in_scope_query(embedder: HashingEmbedder) -> None:
    options = replace(OPTIONS, in_scope_score="energy_knn")
    router = await LocalRouter.fit(exemplars(), embedder, oos=out_of_scope(), options=options)
    assert router.scoring.method == "energy_knn" and router.scoring.knn_weight == 0.3
    assert router.scoring.energy_scale > 0 and router.scoring.knn_scale > 0
    texts = ["how much does the pro plan cost", "quantum chromodynamics lattice gauge theory"]
    known, far = await router.predict(texts, embedder, ambiguity_margin=0.1)
    assert 0.0 < far.support < known.support < 1.0


async def test_a_router_stored_before_the_energy_score_keeps_its_blend(embedder: HashingEmbedder) -> None:
    """Routers saved by an earlier release have no ``method``: they answer with the blend they
    were fitted with (top probability and neighbour mean), not with statistics they never had."""
    fitted = await LocalRouter.fit(
        exemplars(), embedder, oos=out_of_scope(), options=replace(OPTIONS, in_scope_score="maxp_knn")
    )
    metadata = fitted.metadata()
    for key in ("method", "energy_mean", "energy_scale", "knn_mean", "knn_scale"):
        del metadata["scoring"][key]
    restored = LocalRouter.restore(metadata, fitted.weights())
    assert restored.scoring.method == "maxp_knn"
    texts = ["book me a demo", "quantum chromodynamics lattice gauge theory"]
    a = await fitted.predict(texts, embedder, ambiguity_margin=0.1)
    b = await restored.predict(texts, embedder, ambiguity_margin=0.1)
    assert [x.support for x in a] == pytest.approx([y.support for y in b], abs=1e-2)
    assert [x.abstained for x in a] == [y.abstained for y in b]


async def test_without_held_out_lines_the_training_lines_standardise_the_score(embedder: HashingEmbedder) -> None:
    two = [Exemplar(text="price of the pro plan", label="pricing"), Exemplar(text="book a call", label="booking")]
    router = await LocalRouter.fit(two, embedder, options=RouterFitOptions(in_scope_score="energy_knn"))
    assert router.calibration["threshold_rule"] == "no_validation_data"
    assert router.scoring.energy_scale > 1e-5 and router.scoring.knn_mean > 0
    [p] = await router.predict(["price of the pro plan"], embedder, ambiguity_margin=0.1)
    assert 0.0 < p.support < 1.0 and p.abstained is None


async def test_evaluation_reports_the_clinc_figures(router: LocalRouter, embedder: HashingEmbedder) -> None:
    test = [Exemplar(text="pro plan price per seat", label="pricing"), Exemplar(text="sing me a song", label="oos")]
    metrics = await evaluate_router(router, test, embedder, ambiguity_margin=0.1)
    for key in ("in_scope_accuracy", "oos_recall", "oos_precision", "per_class", "expected_calibration_error"):
        assert key in metrics
    assert metrics["in_scope"] == 1 and metrics["out_of_scope"] == 1
    with pytest.raises(InvalidInputError, match="not fitted on"):
        await evaluate_router(router, [Exemplar(text="x", label="unknown")], embedder, ambiguity_margin=0.1)


async def test_a_label_mapped_to_two_decisions_is_refused(embedder: HashingEmbedder) -> None:
    bad = [*exemplars(), Exemplar(text="price please", label="pricing", decision=Decision.ESCALATE)]
    with pytest.raises(InvalidInputError, match="mapped to both"):
        await LocalRouter.fit(bad, embedder, options=OPTIONS)


async def test_one_label_is_not_enough(embedder: HashingEmbedder) -> None:
    with pytest.raises(InvalidInputError, match="two labels"):
        await LocalRouter.fit([Exemplar(text="a", label="x")], embedder)


def test_bad_jsonl_lines_name_line_and_field() -> None:
    with pytest.raises(InvalidInputError) as info:
        parse_exemplar_lines(['{"text": "ok", "label": "a"}', '{"text": ""}'], source="f.jsonl")
    assert info.value.field == "f.jsonl:2.text"
    with pytest.raises(InvalidInputError, match="invalid JSON"):
        parse_exemplar_lines(["{nope"], source="f.jsonl")


def test_temperature_scaling_recovers_a_known_temperature() -> None:
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(4000, 5)).astype(np.float32) * 3
    labels = np.asarray([rng.choice(5, p=row) for row in softmax(logits, 2.0)], dtype=np.int64)
    assert fit_temperature(logits, labels) == pytest.approx(2.0, rel=0.15)


@given(
    scores=st.lists(st.floats(0, 1), min_size=5, max_size=60),
    correct=st.lists(st.booleans(), min_size=60, max_size=60),
    oos=st.lists(st.floats(0, 1), min_size=0, max_size=20),
    budget=st.floats(0, 0.2),
)
def test_the_chosen_threshold_stays_within_the_accuracy_budget(
    scores: list[float], correct: list[bool], oos: list[float], budget: float
) -> None:
    top = np.asarray(scores, dtype=np.float32)
    right = np.asarray(correct[: len(scores)], dtype=bool)
    choice = choose_threshold(top, right, np.asarray(oos, dtype=np.float32) if oos else None, max_accuracy_loss=budget)
    kept = float((right & (top >= choice.threshold)).mean())
    assert kept >= right.mean() - budget - 1e-9


@given(st.lists(st.tuples(st.floats(0, 1), st.booleans()), min_size=1, max_size=50))
def test_calibration_error_is_a_probability(pairs: list[tuple[float, bool]]) -> None:
    confidence = np.asarray([p for p, _ in pairs], dtype=np.float32)
    correct = np.asarray([c for _, c in pairs], dtype=bool)
    assert 0.0 <= expected_calibration_error(confidence, correct) <= 1.0


@given(st.lists(st.floats(-30, 30), min_size=3, max_size=3))
def test_probabilities_never_leave_zero_one(logits: list[float]) -> None:
    """float32 sums can exceed 1 by an ulp; what the router reports is clamped."""
    from phronesis.routing.classifier import FitOptions, SoftmaxClassifier

    classifier = SoftmaxClassifier(
        np.zeros((2, 3), dtype=np.float32), None, np.asarray(logits, dtype=np.float32), FitOptions()
    )
    from phronesis.routing.local_router import Scoring

    router = LocalRouter(
        labels=["a", "b", "c"],
        decisions={"a": Decision.RETRIEVE, "b": Decision.RETRIEVE, "c": Decision.CLARIFY},
        classifier=classifier,
        exemplar_vectors=np.eye(2, dtype=np.float32),
        scoring=Scoring(1.0, 0.0, 1, 0.5, 0),
        embedding_model="test",
    )
    [p] = router.predict_vectors(np.asarray([[1.0, 0.0]], dtype=np.float32), ["x"], ambiguity_margin=0.0)
    assert 0.0 <= p.probability <= 1.0 and 0.0 <= p.label_probability <= 1.0


@pytest.mark.parametrize(("minimum", "method", "weight"), [(10_000, "maxp_knn", 0.8), (1, "energy_knn", 0.3)])
async def test_auto_uses_the_energy_score_only_with_enough_lines_to_standardise_it(
    embedder: HashingEmbedder, minimum: int, method: str, weight: float
) -> None:
    options = replace(OPTIONS, energy_min_calibration=minimum)
    router = await LocalRouter.fit(exemplars(), embedder, oos=out_of_scope(), options=options)
    assert (router.scoring.method, router.scoring.knn_weight) == (method, weight)


async def test_fitting_says_how_far_it_got_and_what_it_held_out(embedder: HashingEmbedder) -> None:
    """Issue 26: ``routing fit`` showed 50 s of a bare spinner, and never said it held exemplars out."""
    said: list[str] = []
    router = await LocalRouter.fit(exemplars(), embedder, oos=out_of_scope(), options=OPTIONS, progress=said.append)
    total = len(exemplars()) + len(out_of_scope())
    assert said[0] == f"embedding 0/{total} texts (the first loads the sentence model)"
    assert f"embedded {total} texts" in said
    held = next(m for m in said if m.startswith("held out"))
    assert held.endswith("to calibrate on (no validation set given); the router is fitted on all of them afterwards")
    assert router.calibration["held_out"] == int(held.split()[2]) > 0
    assert any("epoch 0/" in m for m in said) and any(m.startswith("fitting again on all") for m in said)

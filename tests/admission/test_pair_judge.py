"""The pair judge (``admission.pair_judge``): features beyond the cosine, fitted on labelled pairs,
kept with the tenant's calibration and used by admissions in place of the cosine threshold."""

from __future__ import annotations

import random

import numpy as np
import pytest

from phronesis.admission.pair_judge import FEATURES, PairJudge, fit_pair_judge, pair_features
from phronesis.admission.pairs import LabelledPair, pair_similarities
from phronesis.engine import Engine
from tests.engines import EngineFactory

ITEMS = ["invoice", "order", "ticket", "refund", "shipment", "contract", "report", "payment"]


def labelled(seed: int = 3, n: int = 160) -> list[LabelledPair]:
    """Pairs a cosine cannot tell apart: the same words, with the same number (a paraphrase:
    reordered) or another number (not the same thing)."""
    rng, pairs = random.Random(seed), []
    for i in range(n):
        item, number = rng.choice(ITEMS), rng.randint(10, 99)
        first = f"the agent processed {item} {number} for the customer today"
        if i % 2:
            pairs.append(LabelledPair(True, first, f"today the agent processed {item} {number} for the customer"))
        else:
            pairs.append(LabelledPair(False, first, f"the agent processed {item} {number + 1} for the customer today"))
    return pairs


def test_features_are_symmetric_and_named() -> None:
    a, b = "Acme paid 300 dollars on Monday.", "On Monday Acme did not pay 450 dollars."
    forward, backward = pair_features(a, b, 0.8, {}, 2.0), pair_features(b, a, 0.8, {}, 2.0)
    assert len(forward) == len(FEATURES) and forward == pytest.approx(backward)
    named = dict(zip(FEATURES, forward, strict=True))
    assert named["numbers_differ_any"] == 1.0 and named["negation_one_side"] == 1.0


def test_a_fitted_judge_tells_apart_what_one_cosine_cannot() -> None:
    pairs = labelled()
    cosines = np.full(len(pairs), 0.97)  # one number for every pair: a threshold is a coin
    judge = fit_pair_judge([(p.first, p.second) for p in pairs], cosines, [p.duplicate for p in pairs])
    held = labelled(seed=11, n=40)
    said = judge.duplicates([(p.first, p.second) for p in held], np.full(len(held), 0.97))
    assert said == [p.duplicate for p in held]


def test_a_judge_round_trips_as_json_and_one_of_other_features_is_refused() -> None:
    pairs = labelled(n=40)
    judge = fit_pair_judge([(p.first, p.second) for p in pairs], np.full(40, 0.9), [p.duplicate for p in pairs])
    assert PairJudge.from_json(judge.to_json()) == judge
    assert PairJudge.from_json(judge.to_json() | {"features": ["cosine"]}) is None


async def test_calibrate_keeps_a_judge_that_admissions_use(make_engine: EngineFactory) -> None:
    """With a cosine threshold, two runs whose summaries differ only in an amount are near-
    duplicates (NOT: the second is lost); with the tenant's judge they are two runs of the task."""
    engine: Engine = await make_engine(admission={"duplicate_threshold": 0.8})
    run = {"task": "Pay the supplier", "outcome": "success"}
    first = "the agent processed payment 41 for the customer today"
    second = "the agent processed payment 42 for the customer today"
    await engine.admit_run(summary=first, agent_id="ap", **run)
    before = await engine.admit_run(summary=second, agent_id="ap", **run)
    assert (before.decision, before.rule) == ("NOT", "near_duplicate")

    pairs = labelled()
    cosines = await pair_similarities(pairs, engine.embedder)
    judge = fit_pair_judge([(p.first, p.second) for p in pairs], cosines, [p.duplicate for p in pairs])
    # the tenant's calibration: the same threshold, and the judge that decides in its place
    await engine.admission.calibrations.save("default", 0.8, {"pair_judge": judge.to_json()})
    await engine.admit_run(summary=first, agent_id="ap2", **run)
    after = await engine.admit_run(summary=second, agent_id="ap2", **run)
    assert (after.decision, after.rule) == ("MERGE", "complementary")
    assert after.similar_runs[0].duplicate is False  # the judge's verdict is on the record
    assert before.similar_runs[0].duplicate is None  # no judge: the threshold decided
    same = await engine.admit_run(summary=f"today {first}", agent_id="ap2", **run)
    assert (same.decision, same.rule) == ("NOT", "near_duplicate")  # a paraphrase is still a duplicate
    evaluated = await engine.admission.evaluate_pairs("default", labelled(seed=5, n=40))
    assert evaluated["pair_judge"]["accuracy"] == 1.0 and evaluated["threshold"] == 0.8
    fitted = await engine.admission.calibrate("other", pairs)
    assert fitted["saved"] and fitted["pair_judge"]["accuracy"] == 1.0
    assert (await engine.admission.calibrations.current("other")).pair_judge is not None  # type: ignore[union-attr]

"""How well a local router does on labelled data: the figures ``phronesis routing evaluate`` prints.

The in-scope/out-of-scope figures follow the CLINC150 protocol (Larson et al. 2019): a
prediction is the top label, or ``oos`` when the router's in-scope score is below its
threshold. Rasa-style ambiguity (→ CLARIFY) is reported beside them, not folded in, so the
figures stay comparable with published ones.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from phronesis.embeddings.types import Embedder
from phronesis.exceptions import InvalidInputError
from phronesis.routing.calibration import expected_calibration_error
from phronesis.routing.exemplars import OOS_LABEL, Exemplar
from phronesis.routing.local_router import LocalPrediction, LocalRouter

__all__ = ["evaluate_predictions", "evaluate_router"]


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 4) if denominator else None


def evaluate_predictions(
    router: LocalRouter, examples: Sequence[Exemplar], predictions: Sequence[LocalPrediction]
) -> dict[str, Any]:
    predicted = [OOS_LABEL if p.abstained == "out_of_scope" else p.label for p in predictions]
    gold = [e.label for e in examples]
    in_scope = [i for i, g in enumerate(gold) if g != OOS_LABEL]
    oos = [i for i, g in enumerate(gold) if g == OOS_LABEL]
    predicted_oos = [i for i, p in enumerate(predicted) if p == OOS_LABEL]
    hits = Counter[str]()
    said = Counter(predicted)
    for g, p in zip(gold, predicted, strict=True):
        if g == p:
            hits[g] += 1
    per_class: dict[str, dict[str, float | int | None]] = {}
    for label, support in sorted(Counter(gold).items()):
        precision = _ratio(hits[label], said[label])
        recall = _ratio(hits[label], support)
        f1 = None
        if precision is not None and recall is not None and precision + recall > 0:
            f1 = round(2 * precision * recall / (precision + recall), 4)
        per_class[label] = {"precision": precision, "recall": recall, "f1": f1, "support": support}
    decided = [i for i in in_scope if predictions[i].abstained is None]
    top = np.asarray([predictions[i].label_probability for i in in_scope], dtype=np.float32)
    right = np.asarray([predictions[i].label == gold[i] for i in in_scope], dtype=bool)
    decision_right = sum(predictions[i].decision is router.decisions[gold[i]] for i in in_scope)
    return {
        "examples": len(examples),
        "in_scope": len(in_scope),
        "out_of_scope": len(oos),
        "in_scope_accuracy": _ratio(sum(predicted[i] == gold[i] for i in in_scope), len(in_scope)),
        "oos_recall": _ratio(sum(predicted[i] == OOS_LABEL for i in oos), len(oos)),
        "oos_precision": _ratio(sum(gold[i] == OOS_LABEL for i in predicted_oos), len(predicted_oos)),
        "overall_accuracy": _ratio(sum(p == g for p, g in zip(predicted, gold, strict=True)), len(gold)),
        "top1_accuracy_without_threshold": _ratio(int(right.sum()), len(in_scope)),
        "decision_accuracy": _ratio(decision_right, len(in_scope)),
        "expected_calibration_error": round(expected_calibration_error(top, right), 4) if len(in_scope) else None,
        "ambiguous_rate": _ratio(sum(predictions[i].abstained == "ambiguous" for i in in_scope), len(in_scope)),
        "accuracy_when_decided": _ratio(sum(predictions[i].label == gold[i] for i in decided), len(decided)),
        "threshold": round(router.scoring.threshold, 4),
        "per_class": per_class,
    }


async def evaluate_router(
    router: LocalRouter, examples: Sequence[Exemplar], embedder: Embedder, *, ambiguity_margin: float
) -> dict[str, Any]:
    if not examples:
        raise InvalidInputError("examples", "no examples to evaluate")
    unknown = sorted({e.label for e in examples if e.label != OOS_LABEL} - set(router.labels))
    if unknown:
        raise InvalidInputError("label", f"labels the router was not fitted on: {', '.join(unknown[:5])}")
    predictions = await router.predict([e.text for e in examples], embedder, ambiguity_margin=ambiguity_margin)
    return evaluate_predictions(router, examples, predictions)

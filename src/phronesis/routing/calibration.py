"""Turning logits into probabilities that mean what they say, and choosing where to abstain.

Raw softmax scores (and raw cosines) are not probabilities: semantic-router's own docs say
so, and Rasa had to tell users to re-tune thresholds every time its confidence scale moved.
Temperature scaling (one parameter fitted by likelihood on held-out data) makes the top
probability calibrated; the out-of-scope threshold is then chosen on held-out data too,
on that same calibrated scale.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["ThresholdChoice", "choose_threshold", "expected_calibration_error", "fit_temperature", "softmax"]

Matrix = npt.NDArray[np.float32]


def softmax(logits: Matrix, temperature: float = 1.0) -> Matrix:
    scaled = logits / temperature
    scaled = scaled - scaled.max(axis=1, keepdims=True)
    exp = np.exp(scaled)
    result: Matrix = (exp / exp.sum(axis=1, keepdims=True)).astype(np.float32)
    return result


def _nll(logits: Matrix, labels: npt.NDArray[np.int64], temperature: float) -> float:
    probs = softmax(logits, temperature)
    picked = probs[np.arange(len(labels)), labels]
    return float(-np.log(np.clip(picked, 1e-12, 1.0)).mean())


def fit_temperature(logits: Matrix, labels: npt.NDArray[np.int64]) -> float:
    """The temperature minimising held-out negative log-likelihood (golden-section on log T)."""
    low, high = np.log(0.05), np.log(20.0)
    ratio = (np.sqrt(5) - 1) / 2
    for _ in range(60):
        a = high - ratio * (high - low)
        b = low + ratio * (high - low)
        if _nll(logits, labels, float(np.exp(a))) < _nll(logits, labels, float(np.exp(b))):
            high = b
        else:
            low = a
    return float(np.exp((low + high) / 2))


def expected_calibration_error(
    confidence: npt.NDArray[np.float32], correct: npt.NDArray[np.bool_], bins: int = 15
) -> float:
    """ECE over equal-width confidence bins: how far stated confidence is from observed accuracy."""
    if len(confidence) == 0:
        return 0.0
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.clip(np.digitize(confidence, edges[1:-1]), 0, bins - 1)
    error = 0.0
    for b in range(bins):
        mask = which == b
        if mask.any():
            error += mask.mean() * abs(float(correct[mask].mean()) - float(confidence[mask].mean()))
    return float(error)


@dataclass(frozen=True, slots=True)
class ThresholdChoice:
    threshold: float
    rule: str
    in_scope_accuracy: float
    oos_recall: float | None


def choose_threshold(
    in_scope_top: npt.NDArray[np.float32],
    in_scope_correct: npt.NDArray[np.bool_],
    oos_top: npt.NDArray[np.float32] | None,
    *,
    max_accuracy_loss: float,
) -> ThresholdChoice:
    """The out-of-scope threshold on calibrated top probability.

    With out-of-scope examples: the threshold with the highest out-of-scope recall whose
    in-scope accuracy stays within ``max_accuracy_loss`` of not abstaining at all (a
    budget, like RouteLLM's quantile calibration, rather than a magic number).
    Without them: the highest threshold that keeps the same budget; it rejects the
    least-confident in-scope answers, which are also the likeliest to be wrong.
    """
    base = float(in_scope_correct.mean()) if len(in_scope_correct) else 0.0
    floor = base - max_accuracy_loss
    candidates = np.unique(np.concatenate([in_scope_top, oos_top if oos_top is not None else []]))
    best: ThresholdChoice | None = None
    for threshold in candidates:
        accuracy = float((in_scope_correct & (in_scope_top >= threshold)).mean())
        if accuracy < floor:
            continue
        recall = None if oos_top is None or len(oos_top) == 0 else float((oos_top < threshold).mean())
        key = (recall if recall is not None else 0.0, float(threshold))
        if best is None or key > ((best.oos_recall or 0.0), best.threshold):
            rule = "max_oos_recall_within_budget" if recall is not None else "accuracy_budget"
            best = ThresholdChoice(float(threshold), rule, accuracy, recall)
    if best is None:  # no held-out data: never abstain
        return ThresholdChoice(0.0, "no_validation_data", base, None)
    return best

"""Exploration: how a heuristic below the threshold can earn its way back without an LLM (issue 21).

A heuristic that falls below the confidence threshold never fires again, so it gets no more
signals: with no LLM to fall back on, one bad week is forever. With exploration on, a decision
whose candidates are all below the threshold may still fire one of them, chosen by Thompson
sampling: each candidate's success rate is drawn from its Beta posterior and the best draw
fires if it clears the threshold. A heuristic with little evidence is explored often, one with
much evidence against it almost never.

It is off by default and rate-limited: only a ``rate`` share of such decisions explore at all.
Every explored fire records its **propensity**, the probability this policy had of firing that
heuristic for that event (``rate`` × the Monte Carlo probability that its draw wins and clears
the threshold), so its outcomes can be evaluated offline by inverse propensity weighting.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from phronesis.executive.types import HeuristicCandidate

__all__ = ["PROPENSITY_SAMPLES", "ThompsonExploration"]

PROPENSITY_SAMPLES = 4000
"""Monte Carlo draws behind a recorded propensity: ±0.016 at worst (95 %), enough to weight by."""

PRIOR_STRENGTH = 2.0
"""For a candidate given without its evidence (a caller's own), a Beta of this size at its confidence."""


@dataclass(frozen=True, slots=True)
class ThompsonExploration:
    rate: float

    def choose(
        self, candidates: Sequence[HeuristicCandidate], threshold: float, rng: random.Random
    ) -> tuple[HeuristicCandidate, dict[str, Any]] | None:
        """The candidate to fire as exploration and what to record about it, or None."""
        if not candidates or self.rate <= 0.0 or rng.random() >= self.rate:
            return None
        alpha, beta = _posteriors(candidates)
        generator = np.random.default_rng(rng.getrandbits(64))
        draw = generator.beta(alpha, beta)
        best = int(np.argmax(draw))
        if draw[best] < threshold:
            return None
        draws = generator.beta(alpha[:, None], beta[:, None], size=(len(candidates), PROPENSITY_SAMPLES))
        wins = (np.argmax(draws, axis=0) == best) & (draws[best] >= threshold)
        record = {
            "policy": "thompson",
            "rate": self.rate,
            "sample": float(draw[best]),
            "probability": self.rate * float(wins.mean()),
        }
        return candidates[best], record


def _posteriors(candidates: Sequence[HeuristicCandidate]) -> tuple[np.ndarray, np.ndarray]:
    alpha = np.empty(len(candidates))
    beta = np.empty(len(candidates))
    for i, candidate in enumerate(candidates):
        if candidate.alpha is not None and candidate.beta is not None:
            alpha[i], beta[i] = candidate.alpha, candidate.beta
        else:
            alpha[i] = max(candidate.confidence * PRIOR_STRENGTH, 1e-3)
            beta[i] = max((1.0 - candidate.confidence) * PRIOR_STRENGTH, 1e-3)
    return alpha, beta

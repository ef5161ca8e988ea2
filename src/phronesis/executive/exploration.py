"""Exploration: how a heuristic below the threshold can earn its way back without an LLM.

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
    ) -> tuple[HeuristicCandidate | None, dict[str, Any]] | None:
        """None when exploration is off or there is nothing to explore. Otherwise the candidate to
        fire (or None: not explored this time) and what to record either way: ``explored`` and
        ``probability``, the propensity of what happened (that candidate fired, or no exploration),
        so a fire and a non-fire alike can be weighted offline; ``chances`` (each candidate's
        propensity) and ``stay`` (no exploration's), so another policy's choice can be too."""
        if not candidates or self.rate <= 0.0:
            return None
        alpha, beta = _posteriors(candidates)
        wins, any_clears = _chances(alpha, beta, threshold)
        record: dict[str, Any] = {
            "policy": "thompson",
            "rate": self.rate,
            # every choice's propensity, not only the one taken: what a replay of another
            # threshold needs to know whether this policy could have made its choice
            "chances": {c.heuristic_id: self.rate * float(w) for c, w in zip(candidates, wins, strict=True)},
            "stay": 1.0 - self.rate * any_clears,
        }
        if rng.random() < self.rate:
            draw = np.random.default_rng(rng.getrandbits(64)).beta(alpha, beta)
            best = int(np.argmax(draw))
            if draw[best] >= threshold:
                record.update(explored=True, sample=float(draw[best]), probability=self.rate * float(wins[best]))
                return candidates[best], record
        record.update(explored=False, probability=1.0 - self.rate * any_clears)
        return None, record


def _chances(alpha: np.ndarray, beta: np.ndarray, threshold: float) -> tuple[np.ndarray, float]:
    """Per candidate, the probability that its draw is the best and clears ``threshold``; and the
    probability that the best draw clears it. Monte Carlo from a generator seeded by the posteriors
    themselves: the same evidence always gives the same propensity."""
    seed = hash((tuple(np.round(alpha, 9)), tuple(np.round(beta, 9)), round(threshold, 9))) & (2**63 - 1)
    draws = np.random.default_rng(seed).beta(alpha[:, None], beta[:, None], size=(len(alpha), PROPENSITY_SAMPLES))
    best = np.argmax(draws, axis=0)
    clears = draws.max(axis=0) >= threshold
    wins = np.array([float(np.mean((best == i) & clears)) for i in range(len(alpha))])
    return wins, float(clears.mean())


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

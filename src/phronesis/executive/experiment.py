"""A/B assignment of events to strategies (seed 000: "so that Phase 2 can A/B test different strategies").

The arm is a pure function of (salt, key value): the same user (or source, or event)
always lands on the same strategy, across restarts and workers, with no stored state.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal

from phronesis.exceptions import ConfigurationError

__all__ = ["Experiment", "ExperimentKey"]

ExperimentKey = Literal["user", "source", "event"]


@dataclass(frozen=True, slots=True)
class Experiment:
    arms: tuple[tuple[str, float], ...]
    key: ExperimentKey = "user"
    salt: str = "phronesis"

    @classmethod
    def from_weights(cls, weights: dict[str, float], key: ExperimentKey, salt: str) -> Experiment:
        if not weights:
            raise ConfigurationError("PHRONESIS_EXECUTIVE__EXPERIMENT_ARMS: needs at least one strategy")
        total = sum(weights.values())
        # Sorted, so the split does not depend on the order the setting was written in.
        return cls(tuple((name, weights[name] / total) for name in sorted(weights)), key, salt)

    def bucket(self, value: str) -> float:
        """A uniform number in [0, 1) from the key value: the first 8 bytes of SHA-256."""
        digest = hashlib.sha256(f"{self.salt}\x00{value}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64

    def assign(self, value: str) -> str:
        point = self.bucket(value)
        cumulative = 0.0
        for name, share in self.arms:
            cumulative += share
            if point < cumulative:
                return name
        return self.arms[-1][0]

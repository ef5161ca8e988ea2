"""Scores to signed magnitudes (seed 001 F-23: "maps 3-point/5-point scores to magnitudes via config")."""

from __future__ import annotations

from dataclasses import dataclass

from phronesis.feedback.models import Feedback

__all__ = ["ScoreMapping"]


@dataclass(frozen=True, slots=True)
class ScoreMapping:
    binary_magnitude: float = 0.8  # seed 001: explicit_magnitude
    user: tuple[float, float, float] = (-0.8, 0.0, 0.8)
    dev: tuple[float, float, float, float, float] = (-0.4, -0.2, 0.05, 0.2, 0.4)

    def signed_magnitude(self, feedback: Feedback) -> float:
        """Positive moves confidence up, negative down, zero is neutral (recorded, no update)."""
        if feedback.scale == "binary":
            return self.binary_magnitude if feedback.rating == "positive" else -self.binary_magnitude
        table: tuple[float, ...] = self.user if feedback.scale == "user" else self.dev
        return table[feedback.score - 1]

"""The types every stage of an admission shares: the run being judged, its candidates, the verdict."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from phronesis.admission.models import OUTCOME_RANK, AdmissionDecision, AdmissionStage, Outcome, SimilarRun

__all__ = ["Candidate", "Incoming", "LLMTrace", "Verdict", "same_structure"]


@dataclass(frozen=True, slots=True)
class Incoming:
    """The new run as the pre-filter and the judges see it (references normalised)."""

    run_id: str
    task: str
    task_id: str
    summary: str
    outcome: Outcome
    references: frozenset[str]
    artifacts: frozenset[str]

    @property
    def rank(self) -> int:
        return OUTCOME_RANK[self.outcome]


@dataclass(frozen=True, slots=True)
class Candidate:
    """An active run of the same scope, stored or admitted earlier in the same batch."""

    run_id: str
    similarity: float
    task_id: str
    summary: str
    outcome: Outcome
    references: frozenset[str]
    artifacts: frozenset[str]
    same_task: bool
    described: bool = True
    """False for a run below the low threshold whose references and artifacts were not read (no judge sees it)."""
    task: str = ""
    """Its task text."""
    same_values: bool = False
    """Its task text names the same values as the incoming run's (``task_values``) and is not its
    opposite (``opposite``): only then may a run of another task be its duplicate or merge with it."""
    opposite: str | None = None
    """Why its task is the opposite of the incoming run's ("enable/disable": ``phronesis.contrast``),
    or None. Cosine alone would merge "Disable two-factor authentication" into "Enable …" (0.97)."""

    duplicate: bool | None = None
    """The tenant's pair judge's verdict on this pair (``pair_judge``); None where there is none,
    and the cosine threshold decides (``is_duplicate``)."""

    @property
    def kin(self) -> bool:
        """The same task, or another task text naming the same values (``task_values``)."""
        return self.same_task or self.same_values

    @property
    def rank(self) -> int:
        return OUTCOME_RANK[self.outcome]

    def brief(self) -> SimilarRun:
        return SimilarRun(
            run_id=self.run_id,
            similarity=round(self.similarity, 4),
            outcome=self.outcome,
            same_task=self.same_task,
            summary=self.summary[:300],
            references=len(self.references) if self.described else None,
            artifacts=len(self.artifacts) if self.described else None,
            duplicate=self.duplicate,
        )


def same_structure(run: Incoming, candidate: Candidate) -> bool:
    """Seed 003's "same structure": the same outcome, references and artifacts."""
    return (
        run.outcome == candidate.outcome
        and run.references == candidate.references
        and run.artifacts == candidate.artifacts
    )


@dataclass(frozen=True, slots=True)
class LLMTrace:
    prompt: str
    raw_output: str | None
    model: str | None
    latency_ms: float | None
    prompt_tokens: int | None
    completion_tokens: int | None


@dataclass(frozen=True, slots=True)
class Verdict:
    decision: AdmissionDecision
    target: str | None
    reason: str
    stage: AdmissionStage
    rule: str | None
    judge: Literal["llm", "rules"] | None = None
    llm: LLMTrace | None = None


def is_duplicate(candidate: Candidate, duplicate_threshold: float) -> bool:
    """Whether a candidate says what the incoming run says: the tenant's pair judge where one is
    fitted (``admission calibrate``), else its cosine at or above the duplicate threshold."""
    if candidate.duplicate is not None:
        return candidate.duplicate
    return candidate.similarity >= duplicate_threshold

"""Where a cycle's candidates come from: the LLM when configured, else templates; an unusable
LLM answer falls back to templates and says why (seed 004: with no LLM, template candidates)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC

from phronesis.proactive.context import CycleContext
from phronesis.proactive.llm_candidates import CandidateFailure, LLMCandidates
from phronesis.proactive.models import Candidate
from phronesis.proactive.templates import template_candidates

__all__ = ["CandidateSource", "Proposed"]


@dataclass(frozen=True, slots=True)
class Proposed:
    candidates: list[Candidate]
    path: str
    """llm, templates, or fallback (the LLM failed and templates stood in)."""
    fallback_reason: str | None = None
    prompt: str | None = None
    raw_output: str | None = None
    model: str | None = None
    latency_ms: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    dropped: int = 0

    @property
    def llm_called(self) -> bool:
        return self.prompt is not None


class CandidateSource:
    def __init__(self, llm: LLMCandidates | None, *, max_candidates: int) -> None:
        self._llm = llm
        self._max = max_candidates

    def _templates(self, context: CycleContext) -> list[Candidate]:
        zone = context.local_time.tzinfo or UTC  # times in the user's zone and words
        return template_candidates(context.signals, context.now, limit=self._max, zone=zone)

    async def propose(self, context: CycleContext) -> Proposed:
        if self._llm is None:
            return Proposed(self._templates(context), "templates")
        generated = await self._llm.generate(context)
        if isinstance(generated, CandidateFailure):
            return Proposed(
                self._templates(context),
                "fallback",
                fallback_reason=f"{generated.reason}: {generated.detail}"[:256],
                prompt=generated.prompt,
                raw_output=generated.raw_output,
            )
        return Proposed(
            generated.candidates,
            "llm",
            prompt=generated.prompt,
            raw_output=generated.raw_output,
            model=generated.model,
            latency_ms=generated.latency_ms,
            prompt_tokens=generated.prompt_tokens,
            completion_tokens=generated.completion_tokens,
            dropped=generated.dropped,
        )


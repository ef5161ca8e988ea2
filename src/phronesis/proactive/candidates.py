"""Where a cycle's candidates come from: the LLM when configured, else templates; an unusable
LLM answer falls back to templates and says why (seed 004: with no LLM, template candidates)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC

from phronesis.decision import NoExpensiveStage
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

    @property
    def llm_configured(self) -> bool:
        return self._llm is not None

    def templates(self, context: CycleContext, *, why: str | None = None) -> Proposed:
        """Seed 004's template candidates: the way without an LLM (``why`` None), or the fallback
        for an LLM that failed, saying why."""
        if why is None:
            return Proposed(self._templates(context), "templates")
        return Proposed(self._templates(context), "fallback", fallback_reason=why[:256])

    async def propose(self, context: CycleContext) -> Proposed:
        """The LLM's candidates when one is configured, else the templates (a preview's way)."""
        if self._llm is None:
            return self.templates(context)
        return await self.generate(context)

    async def generate(self, context: CycleContext) -> Proposed:
        """The LLM's candidates; an unusable answer falls back to the templates, saying why.
        Raises ``NoExpensiveStage`` without an LLM."""
        if self._llm is None:
            raise NoExpensiveStage("no LLM is configured: template candidates")
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


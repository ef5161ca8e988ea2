"""Learning a new heuristic from a good LLM answer (seed 000 ``ProvideFeedback``, positive).

1. Extract a condition/action pattern: with an LLM, the pattern-extraction prompt parsed
   into ``LearnedPattern``; without one, or when its output fails validation, the event
   and the answer verbatim (the reason is recorded).
2. Quality gate (GLADyS ``_check_heuristic_quality``): condition and action message each
   10–50 words; the action type one of suggest / remind / warn.
3. Merge or create: a heuristic whose condition matches the pattern at similarity ≥ 0.75
   is reinforced instead of duplicated; otherwise a new heuristic is created at confidence
   0.3 with origin ``learned`` and a prior consistent with 0.3 (ORIGINS §1.8 bug 1: GLADyS
   stored 0.3 over a Beta(1, 1) prior, so the first update jumped to 0.67).
"""

from __future__ import annotations

from dataclasses import dataclass
from string import Template
from typing import Literal

from pydantic import ConfigDict, Field

from phronesis.executive.traces import ReasoningTrace
from phronesis.llm.structured import StructuredFailure, generate_structured
from phronesis.llm.types import LLMProvider, LLMRequest
from phronesis.llm.untrusted import delimit
from phronesis.schema import Schema

__all__ = ["ExtractedPattern", "LearnedPattern", "PatternGate", "extract_pattern", "pattern_prompt"]


MAX_CHARS = 4000
"""A heuristic's condition and action are at most this long (heuristic memory's limit)."""


class PatternAction(Schema):
    type: Literal["suggest", "remind", "warn"]
    message: str = Field(min_length=1, max_length=20_000)


class LearnedPattern(Schema):
    """The LLM's answer to the pattern-extraction prompt."""

    model_config = ConfigDict(extra="ignore")

    condition: str = Field(min_length=1, max_length=20_000)
    action: PatternAction


@dataclass(frozen=True, slots=True)
class ExtractedPattern:
    pattern: LearnedPattern
    source: Literal["llm", "verbatim"]
    fallback_reason: str | None = None


@dataclass(frozen=True, slots=True)
class PatternGate:
    min_words: int = 10
    max_words: int = 50

    def problem(self, pattern: LearnedPattern) -> str | None:
        """Why the pattern is not good enough to become a heuristic, or None."""
        for name, text in (("condition", pattern.condition), ("action", pattern.action.message)):
            if len(text) > MAX_CHARS:
                return f"{name} is longer than {MAX_CHARS} characters"
            words = len(text.split())
            if not self.min_words <= words <= self.max_words:
                return f"{name} has {words} words; needs {self.min_words}-{self.max_words}"
        return None


def pattern_prompt(template: str, trace: ReasoningTrace, *, max_chars: int = 4000) -> str:
    return Template(template).safe_substitute(
        event=delimit("event", trace.context, max_chars=max_chars),
        response=delimit("response", trace.response, max_chars=max_chars),
    )


async def extract_pattern(template: str, trace: ReasoningTrace, llm: LLMProvider | None) -> ExtractedPattern:
    verbatim = LearnedPattern(condition=trace.context, action=PatternAction(type="suggest", message=trace.response))
    if llm is None:
        return ExtractedPattern(verbatim, "verbatim", "llm_unavailable")
    outcome = await generate_structured(llm, LLMRequest(prompt=pattern_prompt(template, trace)), LearnedPattern)
    if isinstance(outcome, StructuredFailure):
        return ExtractedPattern(verbatim, "verbatim", outcome.reason)
    return ExtractedPattern(outcome.value, "llm")

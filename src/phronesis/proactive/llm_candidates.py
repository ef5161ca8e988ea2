"""Candidates from the LLM with seed 004 §7's composed system prompt.

system = base rules and voice (scoring guide, self-threat framing) + trust instructions +
dynamic sections (30-day feedback by category, behavioural patterns, suppressed categories).
Signals, recent messages and insights go in delimited, as data. The answer is validated
item by item: a malformed item is dropped (and counted); an answer with no usable shape is
a ``CandidateFailure`` and the caller falls back to template candidates, recording why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from string import Template
from typing import Any

from pydantic import ConfigDict, Field, ValidationError

from phronesis.llm.structured import StructuredFailure, generate_structured
from phronesis.llm.types import LLMProvider, LLMRequest
from phronesis.llm.untrusted import delimit
from phronesis.proactive.context import CycleContext
from phronesis.proactive.models import CATEGORIES, Candidate
from phronesis.schema import Schema

__all__ = ["CandidateFailure", "Generated", "LLMCandidates", "TRUST_INSTRUCTIONS"]

TRUST_INSTRUCTIONS = {
    "new": "Be conservative. Only message for clearly time-sensitive signals. Err on the side of silence.",
    "building": "Moderate approach. Can surface schedule optimizations and deadlines.",
    "established": "Normal proactive behavior. Full range of message types.",
    "deep": "Can be more direct and witty. Proactive about subtle patterns.",
}
"""Seed 004 §4, "LLM Trust Instructions", word for word."""


class _Answer(Schema):
    model_config = ConfigDict(extra="ignore")

    candidates: list[Any] = Field(default_factory=list, max_length=50)


@dataclass(frozen=True, slots=True)
class Generated:
    candidates: list[Candidate]
    prompt: str
    raw_output: str
    model: str
    latency_ms: float
    prompt_tokens: int
    completion_tokens: int
    dropped: int = 0
    """Items of the answer that did not validate as candidates."""


@dataclass(frozen=True, slots=True)
class CandidateFailure:
    reason: str
    detail: str
    prompt: str
    raw_output: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _prompt(name: str) -> str:
    return resources.files("phronesis.proactive").joinpath("prompts", name).read_text(encoding="utf-8")


class LLMCandidates:
    def __init__(self, llm: LLMProvider, *, temperature: float, max_tokens: int, max_candidates: int) -> None:
        self.llm = llm
        self._temperature = temperature
        self._max_tokens = max_tokens
        self._max = max_candidates
        self._system = Template(_prompt("system.txt"))
        self._user = Template(_prompt("user.txt"))

    def system_prompt(self, context: CycleContext) -> str:
        trust = f"\nTRUST LEVEL: {context.trust.level}. {TRUST_INSTRUCTIONS[context.trust.level]}\n"
        return self._system.substitute(
            max_candidates=self._max,
            trust=trust,
            dynamic=_dynamic_sections(context),
            categories=", ".join(CATEGORIES),
        )

    def user_prompt(self, context: CycleContext) -> str:
        signals = "\n".join(
            f"- [{s.type}] urgency {s.urgency_hint}{' (context only)' if s.context_only else ''}: "
            + delimit("signal", _signal_text(s.data), max_chars=600)
            for s in context.signals
        )
        recent = "\n".join("- " + delimit("message", m, max_chars=400) for m in context.recent_messages) or "(none)"
        deferred = (
            "\n".join(
                f"- [{i.category}] " + delimit("insight", i.message_draft, max_chars=400) for i in context.deferred
            )
            or "(none)"
        )
        return self._user.substitute(
            local_time=context.local_time.strftime("%A %Y-%m-%d %H:%M"),
            timezone=context.timezone,
            signals=signals,
            recent=recent,
            deferred=deferred,
            max_candidates=self._max,
        )

    async def generate(self, context: CycleContext) -> Generated | CandidateFailure:
        prompt = self.user_prompt(context)
        request = LLMRequest(
            prompt=prompt,
            system_prompt=self.system_prompt(context),
            format="json",
            max_tokens=self._max_tokens,
            temperature=self._temperature,
        )
        result = await generate_structured(self.llm, request, _Answer, include_schema=False)
        if isinstance(result, StructuredFailure):
            return CandidateFailure(result.reason, result.detail, prompt, result.raw_text)
        candidates, dropped = [], 0
        for item in result.value.candidates:
            try:
                candidates.append(Candidate.model_validate(item))
            except ValidationError:
                dropped += 1
        response = result.response
        return Generated(
            candidates=candidates[: self._max],
            prompt=prompt,
            raw_output=result.raw_text,
            model=response.model,
            latency_ms=response.latency_ms,
            prompt_tokens=response.usage.prompt_tokens,
            completion_tokens=response.usage.completion_tokens,
            dropped=dropped + max(0, len(candidates) - self._max),
        )


def _signal_text(data: dict[str, Any]) -> str:
    return "; ".join(f"{k}: {str(v)[:200]}" for k, v in list(data.items())[:12]) or "(no details)"


def _dynamic_sections(context: CycleContext) -> str:
    """Seed 004 §5 and §7: the feedback section, behavioural patterns and suppressed categories."""
    parts = []
    summary = context.feedback
    if summary.total_sent:
        lines = [
            f"\nFEEDBACK DATA (last {context.feedback_days} days):",
            f"Total messages sent: {summary.total_sent}",
        ]
        if summary.engagement_rate is not None:
            lines.append(f"Overall engagement rate: {summary.engagement_rate:.0%}")
        if summary.engagement_by_category:
            lines.append("Engagement by category:")
            lines += [f"  - {c}: {rate:.0%} engagement" for c, rate in sorted(summary.engagement_by_category.items())]
        lines += ["Prioritize categories with higher engagement.", "Avoid categories the user consistently ignores."]
        parts.append("\n".join(lines))
    if context.patterns:
        parts.append(
            "\nBEHAVIOURAL PATTERNS (observed, as data):\n"
            + "\n".join("- " + delimit("pattern", p, max_chars=300) for p in context.patterns[:5])
        )
    if summary.suppressed_categories:
        parts.append("\nDo not propose these categories: " + ", ".join(sorted(summary.suppressed_categories)))
    if summary.suppressed_types:
        parts.append("\nDo not propose messages about these signal types: " + ", ".join(summary.suppressed_types))
    return "\n".join(parts) + ("\n" if parts else "")

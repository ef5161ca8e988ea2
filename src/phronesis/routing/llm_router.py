"""The LLM router: seed 002's prompt, a JSON answer validated into ``DecisionOutput``.

Every way the answer can be unusable (the call failed, no JSON, wrong shape, a decision
outside the five, confidence outside [0, 1]) comes back as a typed failure; the routing
service maps a failed call to ESCALATE ``response_generation_error`` and an invalid
answer to ESCALATE with low confidence (seed 002: "Invalid decisions → fallback").
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from string import Template
from typing import Any

from pydantic import ConfigDict, field_validator

from phronesis.llm.structured import StructuredFailure, StructuredSuccess, generate_structured, upper_label
from phronesis.llm.types import LLMProvider, LLMRequest
from phronesis.llm.untrusted import delimit
from phronesis.routing.decisions import DecisionOutput
from phronesis.routing.sessions import Session
from phronesis.routing.tools import Tool

__all__ = ["LLMDecision", "LLMRouter", "RouterHints"]

MAX_QUERY_CHARS = 2000
MAX_MESSAGE_CHARS = 500


def _text(name: str) -> str:
    return resources.files("phronesis.routing").joinpath("prompts", name).read_text(encoding="utf-8")


class LLMDecision(DecisionOutput):
    """What the LLM must return; extra keys a chatty model adds are ignored, not fatal."""

    model_config = ConfigDict(extra="ignore")

    _upper = field_validator("decision", mode="before")(upper_label)

    @field_validator("required_tools", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        if value is None or value == "none":
            return []
        return value


@dataclass(frozen=True, slots=True)
class RouterHints:
    """The local router's best guesses, shown to the LLM in the cascade (labels and probabilities)."""

    candidates: Sequence[tuple[str, float]]


class LLMRouter:
    def __init__(self, llm: LLMProvider, *, temperature: float, max_tokens: int, history_turns: int) -> None:
        self.llm = llm
        self._temperature = temperature
        self._max_tokens = max_tokens
        self._turns = history_turns
        self._system = _text("system.txt").strip()
        self._template = Template(_text("route.txt"))

    def prompt(self, query: str, session: Session, tools: Sequence[Tool], hints: RouterHints | None) -> str:
        messages = session.recent_messages[-self._turns :] if self._turns else []
        conversation = "\n".join(f"{m.role}: {m.text[:MAX_MESSAGE_CHARS]}" for m in messages) or "(none)"
        sources = "\n".join(
            f"- [{s.get('doc_type', 'general')}] {s.get('title') or s.get('id')}" for s in session.retrieved_sources
        )
        tool_lines = "\n".join(
            f"- {t.name}: {t.description} (parameters: {json.dumps(t.parameters.get('properties', {}))[:400]})"
            for t in tools
        )
        hint_block = ""
        if hints is not None and hints.candidates:
            listed = "\n".join(f"- {label} ({p:.2f})" for label, p in hints.candidates)
            hint_block = (
                "\nLOCAL ROUTER HINTS (labels it considered, with its probabilities):\n"
                + delimit("router_hints", listed)
                + "\n"
            )
        return self._template.substitute(
            query=delimit("query", query, max_chars=MAX_QUERY_CHARS),
            turns=self._turns,
            conversation=delimit("conversation", conversation),
            lead_context=delimit("lead_context", json.dumps(session.lead_context, default=str)[:2000]),
            source_count=len(session.retrieved_sources),
            sources=delimit("sources", sources or "(none)"),
            tools=delimit("tools", tool_lines or "(none)"),
            hints=hint_block,
        )

    async def decide(
        self, query: str, session: Session, tools: Sequence[Tool], hints: RouterHints | None = None
    ) -> tuple[str, StructuredSuccess[LLMDecision] | StructuredFailure]:
        prompt = self.prompt(query, session, tools, hints)
        request = LLMRequest(
            prompt=prompt,
            system_prompt=self._system,
            max_tokens=self._max_tokens,
            temperature=self._temperature,
        )
        return prompt, await generate_structured(self.llm, request, LLMDecision, include_schema=False)

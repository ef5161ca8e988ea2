"""What a CLARIFY asks, without an LLM: about what is actually unclear (issue 22, item 7).

Seed 002: "Identify missing information … Formulate clarifying question". Before, every local
CLARIFY asked "Could you tell me a little more?". Here the question names what is unclear:
the two decisions the router could not tell apart, the tool arguments that are missing (by
their schema descriptions when the tool gives them), the sources found when asking to
confirm, or that nothing was found.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from phronesis.routing.retrieval import RetrievedSource
from phronesis.routing.tools import ArgumentProblem, Tool

__all__ = ["before_acting", "between_decisions", "for_arguments", "nothing_found", "which_one"]

_DECISION_WORDS = {
    "RETRIEVE": "look something up in our documentation",
    "REASON_ONLY": "answer from what we have discussed",
    "USE_TOOL": "do something for you",
    "CLARIFY": "ask you something first",
    "ESCALATE": "put you in touch with a colleague",
}


def between_decisions(first: str, second: str) -> str:
    """The router could not tell these two decisions apart."""
    a, b = _DECISION_WORDS.get(first, first.lower()), _DECISION_WORDS.get(second, second.lower())
    return f"Just to be sure: should I {a}, or {b}?"


def _field(tool: Tool, name: str) -> str:
    properties = tool.parameters.get("properties", {})
    description = properties.get(name, {}).get("description") if isinstance(properties, Mapping) else None
    return f"{str(description).rstrip('.')} ({name})" if description else name


def for_arguments(problems: Sequence[ArgumentProblem], tools: Mapping[str, Tool]) -> str:
    """Missing or invalid tool arguments, named the way the tool describes them."""
    wanted: dict[str, list[str]] = {}
    for problem in problems:
        tool = tools.get(problem.tool)
        label = _field(tool, problem.field) if tool is not None else problem.field
        if problem.problem != "missing":
            label = f"a valid {label}"
        if label not in wanted.setdefault(problem.tool, []):
            wanted[problem.tool].append(label)
    several = len(wanted) > 1
    parts = [f"{', '.join(fields)} for {name}" if several else ", ".join(fields) for name, fields in wanted.items()]
    return f"To do that I need: {'; '.join(parts)}."


def before_acting(sources: Sequence[RetrievedSource], tools: Sequence[str]) -> str:
    """Medium confidence: confirm what was found, or the action, before going ahead."""
    if sources:
        titles = [s.title or s.doc_type for s in sources[:2]]
        return f"I found {' and '.join(titles)}. Is that what you are asking about, or is it something more specific?"
    if tools:
        return f"Before I go ahead with {' and '.join(tools)}: is that what you want me to do?"
    return "Before I go ahead: can you confirm or add a detail?"


def which_one(titles: Sequence[str], actions: Sequence[str]) -> str:
    """The query is too vague (the seed: "How much does it cost?" — which plan?): offer what the
    knowledge base has on it, else what the agent can do."""
    if len(titles) >= 2:
        return f"Could you tell me which you mean: {', '.join(titles[:-1])} or {titles[-1]}?"
    if titles:
        return f"Is your question about {titles[0]}, or something else?"
    if actions:
        return f"What can I help you with? I can answer questions about our products, or {', '.join(actions)}."
    return "What can I help you with? Could you tell me a little more about what you need?"


def nothing_found() -> str:
    return "I could not find that in our documentation. Could you rephrase it, or say which product or plan you mean?"


_ANAPHORA = re.compile(
    r"^\s*(and|or|but|also|so|then|what about|how about|same)\b|\b(it|its|that|this|these|those|they|them|one|ones)\b",
    re.IGNORECASE,
)


def leans_on_history(query: str) -> bool:
    """A query that cannot be searched alone: it continues the last turn ("And for the Pro
    plan?", "What about annual?") or points back at it ("Is it encrypted?", "How much is that?").
    Three words or fewer count too ("Team plan?")."""
    return len(query.split()) <= 3 or _ANAPHORA.search(query) is not None

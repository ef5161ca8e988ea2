"""What a CLARIFY asks, without an LLM: about what is actually unclear.

Seed 002: "Identify missing information … Formulate clarifying question". Not "Could you tell me
a little more?": the question names what is unclear:
the two decisions the router could not tell apart, the tool arguments that are missing (by
their schema descriptions when the tool gives them), the sources found when asking to
confirm, or that nothing was found.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from phronesis.routing.retrieval import RetrievedSource
from phronesis.routing.tools import ArgumentProblem, Tool

__all__ = [
    "before_acting",
    "between_decisions",
    "for_arguments",
    "gist",
    "nothing_found",
    "to_confirm",
    "what_i_can_do",
    "which_one",
    "which_tool",
]

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


def gist(tool: Tool) -> str:
    """A tool's description as the start of a phrase: "book, reschedule or cancel meetings and demos"."""
    text = tool.description.strip().rstrip(".")
    first = text.split(". ")[0].split(":")[0]
    return first[:1].lower() + first[1:80]


def _field(tool: Tool, name: str) -> str:
    """An argument as a person reads it: its schema description ("your email address"), else its
    name in words ("order id"); never the internal name in brackets."""
    properties = tool.parameters.get("properties", {})
    description = properties.get(name, {}).get("description") if isinstance(properties, Mapping) else None
    label = str(description).strip().rstrip(".?") if description else name.replace("_", " ")
    return label[:1].lower() + label[1:] if label[:2] != label[:2].upper() else label


_WH = frozenset({"how", "what", "when", "where", "which", "who", "whom", "whose", "why", "whether", "if"})


def _and(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def for_arguments(problems: Sequence[ArgumentProblem], tools: Mapping[str, Tool]) -> str:
    """Missing or unusable tool arguments, asked for in the tool's own words: "To book, reschedule
    or cancel meetings and demos I need your email address and when you would like to meet."."""
    wanted: dict[str, list[str]] = {}
    wrong: list[str] = []
    for problem in problems:
        tool = tools.get(problem.tool)
        label = _field(tool, problem.field) if tool is not None else problem.field.replace("_", " ")
        if problem.problem != "missing" and label not in wrong:
            wrong.append(label)
        if label not in wanted.setdefault(problem.tool, []):
            wanted[problem.tool].append(label)
    parts = []
    for name, fields in wanted.items():
        tool = tools.get(name)
        # "I need how many seats" (a description that is a question) reads "I need to know how many seats"
        need = "I need to know" if any(f.split(" ", 1)[0].lower() in _WH for f in fields) else "I need"
        parts.append(f"To {gist(tool)} {need} {_and(fields)}" if tool is not None else f"{need} {_and(fields)}")
    question = "; ".join(parts) + "."
    if wrong:
        question += f" What I have for {_and(wrong)} does not look right: could you give it again?"
    return question


def to_confirm(tool: Tool, arguments: Mapping[str, object]) -> str:
    """A tool that must be confirmed, its arguments complete: what will be done, with what."""
    details = [f"{_field(tool, name)}: {value}" for name, value in arguments.items()]
    what = f" ({'; '.join(details)})" if details else ""
    return f"Just to confirm: shall I {gist(tool)}{what}? Please say yes or no."


def before_acting(sources: Sequence[RetrievedSource], tools: Sequence[Tool]) -> str:
    """Medium confidence: confirm what was found, or the action, before going ahead."""
    if sources:
        titles = [s.title or s.doc_type for s in sources[:2]]
        return f"I found {' and '.join(titles)}. Is that what you are asking about, or is it something more specific?"
    if tools:
        return f"Before I go ahead: do you want me to {_and([gist(t) for t in tools])}?"
    return "Before I go ahead: can you confirm or add a detail?"


def what_i_can_do(actions: Sequence[str]) -> str:
    """Out of scope (small talk, the weather): not a reason to call a person; say what
    the agent is here for, and let the conversation go on."""
    also = f", or {_and(list(actions[:5]))}" if actions else ""
    return (
        f"I can't help with that here. I can answer questions about our products and plans{also}. "
        "What would you like to do?"
    )


def which_tool(first: Tool, second: Tool) -> str:
    """Two tools fit the request about as well: which one is meant, in their own words."""
    return f"Should I {gist(first)}, or {gist(second)}?"


def which_one(titles: Sequence[str], actions: Sequence[str]) -> str:
    """The query is too vague (the seed: "How much does it cost?" — which plan?): offer what the
    knowledge base has on it, else what the agent can do."""
    if len(titles) >= 2:
        return f"Could you tell me which you mean: {', '.join(titles[:-1])} or {titles[-1]}?"
    if titles:
        return f"Is your question about {titles[0]}, or something else?"
    if actions:
        return f"What can I help you with? I can answer questions about our products, or {_and(list(actions))}."
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

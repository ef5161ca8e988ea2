"""Summarisation (seed 003): the summary is what gets embedded and compared.

The caller's own summary wins. Otherwise the LLM writes the seed's 5–7 sentences when
one is configured; with none, or when it fails, a deterministic extractive summary is
used, and the record says which and why.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from importlib import resources
from string import Template
from typing import Literal, Protocol

from phronesis.admission.models import RunIn
from phronesis.exceptions import LLMError
from phronesis.llm.types import LLMProvider, LLMRequest
from phronesis.llm.untrusted import delimit

__all__ = ["ExtractiveSummariser", "LLMSummariser", "Summariser", "Summary"]

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)
_LISTED = 8
"""References or artifacts named in an extractive summary; the rest are counted."""


@dataclass(frozen=True, slots=True)
class Summary:
    text: str
    source: Literal["caller", "llm", "extractive", "stored"]
    """"stored": the run duplicates stored content exactly, so it kept that run's summary."""
    note: str | None = None
    """Why the extractive summary stood in for the LLM's, or why the run was not summarised."""
    llm_calls: int = 0
    """Requests sent to the LLM for it (1 when one was asked, whether or not its answer was used)."""


class Summariser(Protocol):
    async def summarise(self, run: RunIn) -> Summary: ...


def _listing(label: str, values: list[str]) -> str:
    if not values:
        return ""
    shown = ", ".join(values[:_LISTED])
    more = f" and {len(values) - _LISTED} more" if len(values) > _LISTED else ""
    return f"{label}: {shown}{more}."


class ExtractiveSummariser:
    """The task, the outcome, the trace's most central sentences in their order, references and artifacts.

    A sentence's weight is the mean frequency of its words across the whole trace, so the
    sentences about what the run kept doing outrank one-off noise; no model, same input →
    same summary.
    """

    def __init__(self, *, max_sentences: int, max_chars: int) -> None:
        self._max_sentences = max_sentences
        self._max_chars = max_chars

    def extract(self, run: RunIn) -> str:
        trace = [s.strip() for step in run.steps for s in _SENTENCE.split(step) if s.strip()]
        if run.error:
            trace.append(f"Error: {run.error.strip()}")
        counts = Counter(w.casefold() for sentence in trace for w in _WORD.findall(sentence))

        def weight(sentence: str) -> float:
            words = [w.casefold() for w in _WORD.findall(sentence)]
            return sum(counts[w] for w in words) / len(words) if words else 0.0

        budget = max(self._max_sentences - 2, 0)
        chosen = sorted(sorted(range(len(trace)), key=lambda i: (-weight(trace[i]), i))[:budget])
        parts = [f"Task: {run.task.strip().rstrip('.')}.", f"Outcome: {run.outcome}."]
        parts += [trace[i].rstrip(".") + "." for i in chosen]
        parts += [_listing("References", run.references), _listing("Artifacts", run.artifacts)]
        text = " ".join(p for p in parts if p)
        return text[: self._max_chars]

    async def summarise(self, run: RunIn) -> Summary:
        if run.summary is not None:
            return Summary(run.summary.strip()[: self._max_chars], "caller")
        return Summary(self.extract(run), "extractive")


def _prompt(name: str) -> str:
    return resources.files("phronesis.admission").joinpath("prompts", name).read_text(encoding="utf-8")


class LLMSummariser:
    """Seed 003 / ORIGINS §3: the LLM summarises the run (temperature 0.3), extractive on failure."""

    def __init__(self, llm: LLMProvider, fallback: ExtractiveSummariser, *, temperature: float, max_chars: int) -> None:
        self._llm = llm
        self._fallback = fallback
        self._temperature = temperature
        self._max_chars = max_chars
        self._template = Template(_prompt("summarise.txt"))

    def prompt(self, run: RunIn) -> str:
        return self._template.substitute(
            task=delimit("task", run.task, max_chars=1000),
            outcome=run.outcome,
            steps=delimit("steps", "\n".join(f"- {s}" for s in run.steps) or "(none)", max_chars=6000),
            error=delimit("error", run.error or "(none)", max_chars=1000),
            references=delimit("references", "\n".join(run.references) or "(none)", max_chars=2000),
            artifacts=delimit("artifacts", "\n".join(run.artifacts) or "(none)", max_chars=2000),
        )

    async def summarise(self, run: RunIn) -> Summary:
        if run.summary is not None:
            return Summary(run.summary.strip()[: self._max_chars], "caller")
        try:
            response = await self._llm.generate(
                LLMRequest(prompt=self.prompt(run), max_tokens=400, temperature=self._temperature)
            )
        except LLMError as exc:
            return Summary(self._fallback.extract(run), "extractive", f"llm summary failed: {exc.reason}", llm_calls=1)
        text = " ".join(response.text.split())
        if not text:
            return Summary(self._fallback.extract(run), "extractive", "llm summary was empty", llm_calls=1)
        return Summary(text[: self._max_chars], "llm", llm_calls=1)

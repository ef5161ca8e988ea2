"""Prompts for the executive's LLM path (seed 000, F-04 and F-07).

Candidates are shown neutrally: condition and action only (no confidence, id, origin
or counts, which would anchor the LLM), in a shuffled order from an injectable RNG,
at most ``max_candidates`` (hard max 5), with explicit permission to ignore them.
Goals go into the system prompt. Event and heuristic text is untrusted and sits
inside delimiters. Templates are package data files; settings may point elsewhere.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template

from phronesis.exceptions import ConfigurationError
from phronesis.executive.types import DecisionContext, HeuristicCandidate
from phronesis.llm.untrusted import delimit

__all__ = [
    "HARD_MAX_CANDIDATES",
    "PromptTemplates",
    "build_event_prompt",
    "build_prediction_prompt",
    "build_system_prompt",
]

HARD_MAX_CANDIDATES = 5
MAX_GOAL_CHARS = 500


def _package_text(name: str) -> str:
    return resources.files("phronesis.executive").joinpath("prompts", name).read_text(encoding="utf-8")


@dataclass(frozen=True, slots=True)
class PromptTemplates:
    system: str
    event: str
    candidates: str
    prediction: str
    pattern: str

    @classmethod
    def default(cls) -> PromptTemplates:
        return cls(
            system=_package_text("system.txt").strip(),
            event=_package_text("event.txt"),
            candidates=_package_text("candidates.txt"),
            prediction=_package_text("prediction.txt"),
            pattern=_package_text("pattern.txt"),
        )

    @classmethod
    def load(cls, system_file: Path | None = None, prediction_file: Path | None = None) -> PromptTemplates:
        """Defaults, with the system and prediction prompts overridable by files (settings)."""
        templates = cls.default()

        def read(path: Path, setting: str) -> str:
            try:
                return path.read_text(encoding="utf-8")
            except OSError as exc:
                raise ConfigurationError(f"{setting}: cannot read {path} ({exc.strerror})") from None

        system = (
            read(system_file, "PHRONESIS_EXECUTIVE__SYSTEM_PROMPT_FILE").strip() if system_file else templates.system
        )
        prediction = (
            read(prediction_file, "PHRONESIS_EXECUTIVE__PREDICTION_PROMPT_FILE")
            if prediction_file
            else templates.prediction
        )
        for placeholder in ("$event", "$response", "$goals"):
            if placeholder not in prediction:
                raise ConfigurationError(f"PHRONESIS_EXECUTIVE__PREDICTION_PROMPT_FILE: must contain {placeholder}")
        return cls(
            system=system,
            event=templates.event,
            candidates=templates.candidates,
            prediction=prediction,
            pattern=templates.pattern,
        )


def _clean_goals(goals: list[str]) -> list[str]:
    """Goals stripped, length-bounded, blanks dropped."""
    return [goal.strip()[:MAX_GOAL_CHARS] for goal in goals if goal.strip()]


def build_system_prompt(templates: PromptTemplates, goals: list[str]) -> str:
    """Seed 000, F-07: goals are appended to the system prompt."""
    cleaned = _clean_goals(goals)
    if not cleaned:
        return templates.system
    lines = "\n".join(f"- {goal}" for goal in cleaned)
    return f"{templates.system}\n\nCurrent user goals:\n{lines}"


def shown_candidates(
    candidates: list[HeuristicCandidate], max_candidates: int, rng: random.Random
) -> list[HeuristicCandidate]:
    """The candidates the LLM will see: the best ``max_candidates`` (≤ 5), shuffled."""
    shown = list(candidates[: min(max_candidates, HARD_MAX_CANDIDATES)])
    rng.shuffle(shown)
    return shown


def build_event_prompt(
    templates: PromptTemplates, context: DecisionContext, shown: list[HeuristicCandidate], *, max_chars: int = 4000
) -> str:
    block = ""
    if shown:
        items = "\n".join(
            f"{i}. {delimit('situation', c.condition_text, max_chars=max_chars)}\n"
            f"   {delimit('response', c.suggested_action, max_chars=max_chars)}"
            for i, c in enumerate(shown, 1)
        )
        block = Template(templates.candidates).safe_substitute(items=items)
    return Template(templates.event).safe_substitute(
        source=context.event_source.replace('"', "'")[:128] or "unknown",
        event=delimit("event", context.event_text, max_chars=max_chars),
        candidates=block,
    )


def build_prediction_prompt(
    templates: PromptTemplates, context: DecisionContext, response_text: str, *, max_chars: int = 4000
) -> str:
    """Seed 000, F-06: success is defined against the goals when there are any."""
    cleaned = _clean_goals(context.goals)
    goals = f" Success should be evaluated against these goals: {'; '.join(cleaned)}." if cleaned else ""
    return Template(templates.prediction).safe_substitute(
        event=delimit("event", context.event_text, max_chars=max_chars),
        response=delimit("response", response_text, max_chars=max_chars),
        goals=goals,
    )

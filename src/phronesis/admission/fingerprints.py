"""Normalised-text hashes: the exact-duplicate rule and the default task identity.

Mem0 v3 dedups with an MD5 of the raw text and Graphiti with normalised fact text; we
hash what the caller sent (never the LLM summary, which varies between calls), after
Unicode NFKC, case folding and whitespace collapsing, so "Generate  Schema" and
"generate schema" are the same task.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata

from phronesis.admission.models import RunIn

__all__ = ["content_hash", "normalise", "task_id_for"]

_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def _digest(payload: object) -> str:
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()).hexdigest()


def task_id_for(task: str) -> str:
    """A stable id for a task text: the same normalised text is the same task."""
    return "t-" + _digest(["task", normalise(task)])[:40]


def content_hash(run: RunIn, task_id: str) -> str:
    """Everything the run says about itself; two runs with the same hash are the same run."""
    return _digest(
        [
            task_id,
            normalise(run.summary or ""),
            [normalise(step) for step in run.steps],
            normalise(run.error or ""),
            run.outcome,
            sorted(normalise(r) for r in run.references),
            sorted(normalise(a) for a in run.artifacts),
        ]
    )

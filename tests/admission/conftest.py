"""Admission test helpers: runs and candidates built in one line."""

from __future__ import annotations

from typing import Any

from phronesis.admission.judgement import Candidate, Incoming
from phronesis.admission.task_values import same_values


def incoming(
    outcome: str = "success", *, task_id: str = "t1", refs: tuple[str, ...] = (), arts: tuple[str, ...] = ()
) -> Incoming:
    return Incoming(
        run_id="new",
        task="Generate schema",
        task_id=task_id,
        summary="Task: Generate schema.",
        outcome=outcome,  # type: ignore[arg-type]
        references=frozenset(refs),
        artifacts=frozenset(arts),
    )


def candidate(
    run_id: str = "old",
    similarity: float = 0.9,
    outcome: str = "success",
    *,
    task_id: str = "t1",
    refs: tuple[str, ...] = (),
    arts: tuple[str, ...] = (),
    **extra: Any,
) -> Candidate:
    return Candidate(
        run_id=run_id,
        similarity=similarity,
        task_id=task_id,
        summary=extra.get("summary", "Task: Generate schema."),
        outcome=outcome,  # type: ignore[arg-type]
        references=frozenset(refs),
        artifacts=frozenset(arts),
        same_task=task_id == "t1",
        task=extra.get("task", "Generate schema"),
        same_values=same_values(extra.get("task", "Generate schema"), "Generate schema"),
    )

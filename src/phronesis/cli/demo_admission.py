"""The admission half of ``phronesis demo``: seed 003's four example scenarios, one agent scope each."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from phronesis.engine import Engine

__all__ = ["walk_admission"]

TENANT = "demo"

# (title, agent scope, runs admitted in order); the last run of each is the one the scenario is about
SCENARIOS: list[tuple[str, str, list[dict[str, Any]]]] = [
    (
        "New unique task",
        "scenario-1",
        [
            {"task": "Translate the onboarding guide into French", "outcome": "success"},
            {"task": "Generate schema", "outcome": "success", "references": ["orders.csv"]},
        ],
    ),
    (
        "Identical run",
        "scenario-2",
        [
            {"task": "Generate schema", "outcome": "success"},
            {"task": "Generate schema", "outcome": "success"},
        ],
    ),
    (
        "Better version",
        "scenario-3",
        [
            {
                "task": "Generate schema",
                "outcome": "failure",
                "steps": ["Read orders.csv.", "Inferred column types.", "Validation failed on the date column."],
                "references": ["orders.csv"],
            },
            {
                "task": "Generate schema",
                "outcome": "success",
                "steps": ["Read orders.csv.", "Inferred column types.", "Parsed dates as ISO 8601."],
                "references": ["orders.csv"],
                "artifacts": ["schema.sql"],
            },
        ],
    ),
    (
        "Complementary approaches",
        "scenario-4",
        [
            {"task": "Generate schema", "outcome": "success", "references": ["A"]},
            {"task": "Generate schema", "outcome": "success", "references": ["B"]},
        ],
    ),
]


async def walk_admission(engine: Engine, console: Console) -> None:
    console.print("[bold]Admission (seed 003)[/bold]: each scenario in its own agent scope\n")
    for number, (title, agent, runs) in enumerate(SCENARIOS, 1):
        result = None
        for run in runs:
            result = await engine.admit_run(tenant=TENANT, agent_id=agent, **run)
        assert result is not None
        similarity = "-" if result.similarity is None else f"{result.similarity:.2f}"
        console.print(f"[bold]{number}. {title}[/]")
        console.print(f"   summary: {result.summary}", markup=False)
        target = f" {result.target_run_id[:8]}…" if result.target_run_id else ""
        console.print(
            f"   → {result.decision}{target} (similarity {similarity}, {result.stage}"
            + (f"/{result.rule}" if result.rule else "")
            + ")"
        )
        console.print(f"   why: {result.reason}", markup=False)
        console.print()

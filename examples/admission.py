"""Seed 003, admission: a finished agent run is ADDed to memory, NOT stored, REPLACEs or MERGEs.

The seed's four scenarios, each in its own agent scope. Runs in-process on the embedded defaults
(SQLite in a temporary data directory, the local sentence model, no LLM: the rule judge decides
and summaries are extractive), then searches what was kept.

    python examples/admission.py

Uses ``PHRONESIS_DATA_DIR`` when it is set, else a temporary directory removed at the end.
Documented in docs/decisions/admission.md.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path
from typing import Any

from phronesis import Engine, load_settings

TENANT = "example"

# (scenario, agent scope, runs admitted in order): the last run of each is the one it is about
SCENARIOS: list[tuple[str, str, list[dict[str, Any]]]] = [
    (
        "a new task",
        "agent-1",
        [
            {"task": "Translate the onboarding guide into French", "outcome": "success"},
            {"task": "Generate schema", "outcome": "success", "references": ["orders.csv"]},
        ],
    ),
    (
        "the same run again",
        "agent-2",
        [{"task": "Generate schema", "outcome": "success"}, {"task": "Generate schema", "outcome": "success"}],
    ),
    (
        "a better version",
        "agent-3",
        [
            {
                "task": "Generate schema",
                "outcome": "failure",
                "steps": ["Read orders.csv.", "Validation failed on the date column."],
                "references": ["orders.csv"],
            },
            {
                "task": "Generate schema",
                "outcome": "success",
                "steps": ["Read orders.csv.", "Parsed dates as ISO 8601."],
                "references": ["orders.csv"],
                "artifacts": ["schema.sql"],
            },
        ],
    ),
    (
        "a complementary approach",
        "agent-4",
        [
            {"task": "Generate schema", "outcome": "success", "references": ["A"]},
            {"task": "Generate schema", "outcome": "success", "references": ["B"]},
        ],
    ),
]


async def main(data_dir: Path) -> None:
    async with Engine(load_settings(data_dir=data_dir)) as engine:
        for title, agent, runs in SCENARIOS:
            for run in runs:
                result = await engine.admit_run(tenant=TENANT, agent_id=agent, **run)
            rule = f"{result.stage}/{result.rule}" if result.rule else result.stage
            print(f"{title}: {result.decision} ({rule}): {result.reason}")
        # REPLACE never deletes: the failed run is superseded and leaves the index, so only the success is found
        for hit in await engine.admission.search(TENANT, "Generate schema", agent_id="agent-3"):
            print(f"found in agent-3: {hit.run.task} ({hit.run.outcome}, similarity {hit.similarity:.2f})")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="phronesis-example-") as scratch:
        asyncio.run(main(Path(os.environ.get("PHRONESIS_DATA_DIR") or scratch)))

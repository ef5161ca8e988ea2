"""Seed 000, the executive: an event fires a learned heuristic, or goes to the LLM, or is rejected.

Runs in-process on the embedded defaults (a SQLite file in a temporary data directory, the local
sentence model, no LLM), so an event no confident heuristic answers is rejected with its reason;
set ``PHRONESIS_LLM__SPEC`` to have an LLM answer those instead.

    python examples/executive.py

Uses ``PHRONESIS_DATA_DIR`` when it is set, else a temporary directory removed at the end.
Documented in docs/decisions/executive.md.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path
from typing import Any

from phronesis import Engine, load_settings
from phronesis.heuristics import HeuristicCreate

TENANT = "example"

EVENTS: list[tuple[str, dict[str, Any]]] = [
    ("the user says the living room is too cold", {}),  # the condition itself
    ("it is freezing in the lounge", {}),  # one of its examples
    ("the living room is too warm", {}),  # the opposite: never the same situation
    ("a package was delivered", {}),  # a heuristic below the 0.7 threshold
    # urgency_tiered lowers the threshold by urgency × 0.3: at 0.9 the 0.55 heuristic fires
    ("a package was delivered to the front porch", {"strategy": "urgency_tiered", "urgency": 0.9}),
]


async def main(data_dir: Path) -> None:
    async with Engine(load_settings(data_dir=data_dir)) as engine:
        await engine.heuristics.add(
            TENANT,
            HeuristicCreate(
                condition_text="the user says the living room is too cold",
                action_text="raise the thermostat by two degrees",
                domain="home",
                confidence=0.8,
                examples=["it is freezing in the lounge"],
            ),
        )
        await engine.heuristics.add(
            TENANT,
            HeuristicCreate(
                condition_text="a package was delivered to the front porch",
                action_text="tell the user a package arrived",
                domain="home",
                confidence=0.55,
            ),
        )
        for text, fields in EVENTS:
            decision = await engine.decide_event(text, tenant=TENANT, source="home", **fields)
            threshold = decision.metadata.get("threshold")
            best = decision.candidates[0] if decision.candidates else None
            print(f"event: {text}")
            if decision.decision_path == "heuristic":
                why = f"a heuristic of confidence {decision.predicted_success:.2f} ≥ threshold {threshold:.2f}"
                print(f"  -> heuristic: {decision.response_text} ({why}, strategy {decision.strategy})")
            else:
                seen = f"best candidate at confidence {best.confidence:.2f}" if best else "no candidate in scope"
                print(f"  -> {decision.decision_path}: {decision.reason} ({seen})")
        # rate the first decision: the heuristic that fired learns from it
        first = await engine.decide_event(EVENTS[0][0], tenant=TENANT, source="home")
        receipt = await engine.feedback(first.response_id, tenant=TENANT, rating="positive")
        print(f"rated positive: confidence {receipt.old_confidence:.3f} -> {receipt.new_confidence:.3f}")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="phronesis-example-") as scratch:
        asyncio.run(main(Path(os.environ.get("PHRONESIS_DATA_DIR") or scratch)))

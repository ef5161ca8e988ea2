"""Seed 001, learning: what follows a heuristic's fire moves its confidence, and says which lesson.

A heuristic fires; the user's thanks confirms it, a rating raises it, a complaint about the same
situation lowers it (the action was wrong), and a bad rating of a fire on an unlike event teaches a
counter-example and leaves the confidence alone (the match was wrong). Runs in-process on the
embedded defaults (SQLite in a temporary data directory, the local sentence model, no LLM).

    python examples/learning.py

Uses ``PHRONESIS_DATA_DIR`` when it is set, else a temporary directory removed at the end.
Documented in docs/decisions/learning.md.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

from phronesis import Engine, load_settings
from phronesis.heuristics import HeuristicCreate

TENANT = "example"


async def main(data_dir: Path) -> None:
    async with Engine(load_settings(data_dir=data_dir)) as engine:
        heuristic = await engine.heuristics.add(
            TENANT,
            HeuristicCreate(
                condition_text="the user says the living room is too cold",
                action_text="raise the thermostat by two degrees",
                domain="home",
                confidence=0.8,
                examples=["it is freezing in the lounge"],
            ),
        )
        # a fire, then a follow-up from the same source within the undo window (30 s)
        first = await engine.decide_event("the user says the living room is too cold", tenant=TENANT, source="home")
        print(f"fired: {first.response_text}")
        thanks = await engine.observe("thanks, that worked", event_id="reply-1", tenant=TENANT, source="home")
        print(f"'thanks, that worked' read as thanks: {thanks.confirmed}")
        # an explicit rating of the decision, by its response id
        await engine.feedback(first.response_id, tenant=TENANT, rating="positive")
        # the same situation again, and a complaint about it: the action did not help
        await engine.decide_event("it is freezing in the lounge", tenant=TENANT, source="home")
        complaint = await engine.observe(
            "that didn't help, still cold", event_id="reply-2", tenant=TENANT, source="home"
        )
        print(f"'that didn't help, still cold' read as a complaint: {complaint.complaint}")
        # a fire recorded by your agent on an event unlike the heuristic's situations, rated bad
        fire = await engine.record_fire(
            heuristic.id,
            tenant=TENANT,
            event_id="garden-1",
            source="garden",
            event_text="the greenhouse is too cold for the seedlings",
        )
        await engine.feedback(fire.id, tenant=TENANT, rating="negative")
        # the history, oldest first: each step with its signal, the lesson it taught and why
        history = await engine.learning.history(TENANT, heuristic.id)
        for step in reversed(history.items):
            move = f"{step.old_confidence:.3f} -> {step.new_confidence:.3f}"
            print(f"{step.source}: {move}, lesson {step.lesson} ({step.why})")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="phronesis-example-") as scratch:
        asyncio.run(main(Path(os.environ.get("PHRONESIS_DATA_DIR") or scratch)))

"""The walk ``phronesis demo`` shows: a small heuristic pack and events through the executive,
then routing, admission and proactive messages.

It runs in a throw-away SQLite database (``--data-dir`` to keep it), with the configured
embedding model and LLM. With no LLM configured the low-confidence events are rejected
(the seed's no-LLM behaviour); ``--scripted-llm`` shows the LLM path offline.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from phronesis.cli.base import run
from phronesis.cli.demo_admission import walk_admission
from phronesis.cli.demo_proactive import walk_proactive
from phronesis.cli.demo_routing import walk_routing
from phronesis.cli.executive import describe, report_table
from phronesis.engine import Engine
from phronesis.executive.report import build_report
from phronesis.heuristics.models import HeuristicCreate
from phronesis.llm.types import LLMProvider, LLMRequest
from phronesis.settings import load_settings
from phronesis.testing import ScriptedLLM

TENANT = "demo"

# (id, condition, action, confidence, origin): a small "home" pack, one heuristic per situation.
_PACK_ROWS = [
    (
        "smoke-alarm",
        "the smoke alarm is beeping",
        "Check the kitchen for smoke or fire now; if it is a low-battery chirp, replace the battery.",
        0.97,
        "pack",
    ),
    (
        "door-unlocked",
        "the front door was left unlocked at night",
        "Lock the front door and tell the user it had been left unlocked.",
        0.85,
        "pack",
    ),
    ("cold-home", "the user says they are cold at home", "Raise the thermostat by two degrees.", 0.75, "pack"),
    (
        "package",
        "a package was delivered to the front porch",
        "Tell the user a package arrived and suggest bringing it inside.",
        0.55,
        "learned",
    ),
    (
        "laundry",
        "the washing machine finished its cycle",
        "Remind the user to move the laundry to the dryer.",
        0.8,
        "pack",
    ),
]
PACK = [
    HeuristicCreate.model_validate(
        {
            "id": hid,
            "domain": "home",
            "condition_text": condition,
            "action_text": action,
            "confidence": confidence,
            "origin": origin,
        }
    )
    for hid, condition, action, confidence, origin in _PACK_ROWS
]


@dataclass
class Step:
    title: str
    text: str
    fields: dict[str, Any] = field(default_factory=dict)
    rating: str | None = None


STEPS = [
    Step("A confident heuristic fires, no LLM call", "the front door was left unlocked at night", rating="positive"),
    Step("A paraphrase matches the same kind of situation", "the user says they are cold in the living room"),
    Step("A heuristic below the 0.7 threshold: the LLM decides, or it is rejected", "a package was delivered"),
    Step(
        "Emergency fast path: threat ≥ 0.9 and a heuristic at ≥ 0.95",
        "the smoke alarm is beeping",
        {"salience": {"threat": 0.95}, "strategy": "always_llm"},
    ),
    Step(
        "urgency_tiered: high urgency lowers the threshold to 0.43, so the 0.55 heuristic fires",
        "a package was delivered to the front porch",
        {"urgency": 0.9, "strategy": "urgency_tiered"},
        rating="negative",
    ),
    Step("Nothing in memory matches", "what is the capital of Australia?"),
]


def _scripted_llm() -> LLMProvider:
    def respond(request: LLMRequest) -> str:
        if "Predict the probability" in request.prompt:
            return '{"success": 0.7, "confidence": 0.6}'
        return "I'd let the user know, and suggest bringing it inside before it rains."

    return ScriptedLLM(respond, model_name="scripted-demo")


async def _walk(engine: Engine, console: Console) -> None:
    await engine.heuristics.add_many(TENANT, PACK)
    console.print(f"Seeded tenant [bold]{TENANT}[/] with {len(PACK)} heuristics (source 'home').")
    llm = engine.llm.model_name if engine.llm is not None else "none (set PHRONESIS_LLM__SPEC, or --scripted-llm)"
    console.print(f"Embeddings: {engine.embedder.model_name}; LLM: {llm}\n")
    for number, step in enumerate(STEPS, 1):
        decision = await engine.decide_event(step.text, tenant=TENANT, source="home", **step.fields)
        console.print(f"[bold]{number}. {step.title}[/]")
        console.print(f"   event: {step.text!r}  strategy: {decision.strategy}")
        best = decision.candidates[0] if decision.candidates else None
        if best is not None:
            console.print(
                f"   best candidate: {best.heuristic_id} (similarity {best.similarity or 0:.2f},"
                f" confidence {best.confidence:.2f})"
            )
        console.print(f"   {describe(decision)}", markup=False)
        if decision.response_text:
            console.print(f"   → {decision.response_text}", markup=False)
        if step.rating is not None and decision.accepted:
            receipt = await engine.feedback(decision.response_id, tenant=TENANT, rating=step.rating)
            console.print(
                f"   user says {step.rating}: {receipt.heuristic_id} {receipt.old_confidence:.3f}"
                f" → {receipt.new_confidence:.3f}"
            )
        console.print()
    await engine.background.drain()
    console.print(report_table(build_report(await engine.decisions.summarize(TENANT, kind="executive"))))


def run_demo(data_dir: Path, *, scripted_llm: bool) -> None:
    """The whole walk: executive, routing, admission and proactive, in ``data_dir``."""
    console = Console()
    # the scripted LLM speaks only the executive's prompts: admission keeps its rule judge
    offline = {"admission": {"judge": "rules", "summariser": "extractive"}} if scripted_llm else {}
    settings = load_settings(data_dir=data_dir, database={"url": None}, **offline)
    engine = Engine(settings, llm=_scripted_llm()) if scripted_llm else Engine(settings)

    async def go() -> None:
        try:
            await engine.start()
            await _walk(engine, console)
            await walk_routing(engine, console)
            await walk_admission(engine, console)
            await walk_proactive(engine, console)
        finally:
            await engine.close()

    run(go)

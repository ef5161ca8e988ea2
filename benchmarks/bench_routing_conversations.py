"""Routing whole conversations (issue 47): answers to the router's own questions, confirmations,
corrections, changes of mind, tool calls completed over several turns, small talk in between.

``benchmarks/data/routing_conversations.jsonl`` (written by ``routing_conversations_source.py``):
each line a conversation of 2–6 turns with its lead context (and timezone), each turn labelled
with the decision seed 002's table says is right, the tool, the arguments the call must carry
and the source that must answer; ``dev`` / ``test`` halves (tune on dev only). Every
conversation happens on Monday 2 March 2026 at 09:00 in the lead's timezone (a fixed clock),
in its own session, through ``Engine.route`` in process, on SQLite, with the real
all-MiniLM-L6-v2, no LLM (the bundled local router), the sales set's tools and documents
(``bench_routing_sales``).

A turn is right when its decision is, and (USE_TOOL, or a CLARIFY about a tool call) its tool,
and (USE_TOOL) every expected argument (date-times compared in the lead's timezone to the
minute), and (RETRIEVE) the first source. A conversation ends right when its last turn is
right and no turn escalated where the label does not.

    python benchmarks/bench_routing_conversations.py [--split test] [--show-misses 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from bench_routing_sales import T, _engine, _exemplars, _lines
from phronesis.engine import Engine
from phronesis.routing.exemplars import Exemplar
from phronesis.routing.sessions import NewSession

DATA = Path(__file__).with_name("data") / "routing_conversations.jsonl"
DECISIONS = ("RETRIEVE", "REASON_ONLY", "USE_TOOL", "CLARIFY", "ESCALATE")


class ConversationClock:
    """Now is Monday 2 March 2026, 09:00 in the conversation's timezone; latency is real time."""

    def __init__(self) -> None:
        self._now = datetime(2026, 3, 2, 9, 0, tzinfo=ZoneInfo("UTC"))

    def set_local(self, timezone: str) -> None:
        self._now = datetime(2026, 3, 2, 9, 0, tzinfo=ZoneInfo(timezone)).astimezone(ZoneInfo("UTC"))

    def now(self) -> datetime:
        return self._now

    def monotonic(self) -> float:
        return time.monotonic()


def _conversations(split: str | None) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [row for row in rows if split is None or row["split"] == split]


def _same(expected: Any, got: Any, timezone: str) -> bool:
    if isinstance(expected, str) and len(expected) == 16 and expected[10:11] == "T" and isinstance(got, str):
        try:
            moment = datetime.fromisoformat(got)
        except ValueError:
            return False
        if moment.tzinfo is not None:
            moment = moment.astimezone(ZoneInfo(timezone))
        return moment.strftime("%Y-%m-%dT%H:%M") == expected
    return bool(expected == got)


def wrong(expect: dict[str, Any], result: Any, timezone: str) -> str | None:
    """Why a routed turn is not what its label says (None: right)."""
    decision = str(result.decision) if result.decision is not None else "(human-owned)"
    if decision != expect["decision"]:
        return f"decision {decision}"
    tool = expect.get("tool")
    if tool is not None and result.required_tools[:1] != [tool]:
        return f"tool {result.required_tools[:1] or 'none'}"
    if expect["decision"] == "USE_TOOL":
        arguments = result.tool_arguments.get(tool, {})
        for name, value in expect.get("arguments", {}).items():
            if not _same(value, arguments.get(name), timezone):
                return f"argument {name}={arguments.get(name)!r}, expected {value!r}"
    source = expect.get("source")
    if source is not None and (not result.sources or result.sources[0]["id"] != source):
        return f"source {result.sources[0]['id'] if result.sources else 'none'}"
    return None


async def run(engine: Engine, clock: ConversationClock, conversations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each conversation routed turn by turn: per turn, its label, result and what is wrong."""
    outcomes = []
    for conversation in conversations:
        timezone = conversation["lead_context"].get("timezone", "UTC")
        clock.set_local(timezone)
        session = await engine.routing.create_session(T, NewSession(lead_context=conversation["lead_context"]))
        turns = []
        for turn in conversation["turns"]:
            result = await engine.route(
                session.id, turn["text"], tenant=T, tool_arguments=turn.get("tool_arguments", {})
            )
            turns.append({"turn": turn, "result": result, "wrong": wrong(turn["expect"], result, timezone)})
        outcomes.append({"conversation": conversation, "turns": turns})
    return outcomes


def _ends_right(outcome: dict[str, Any]) -> bool:
    turns = outcome["turns"]
    stray = any(
        str(t["result"].decision) == "ESCALATE" and t["turn"]["expect"]["decision"] != "ESCALATE" for t in turns
    )
    return turns[-1]["wrong"] is None and not stray


def table(label: str, outcomes: list[dict[str, Any]]) -> list[str]:
    turns = [t for o in outcomes for t in o["turns"]]
    truth = Counter(t["turn"]["expect"]["decision"] for t in turns)
    predicted = Counter(str(t["result"].decision) for t in turns)
    right = Counter(t["turn"]["expect"]["decision"] for t in turns if t["wrong"] is None)
    lines = [f"\n{label}: {len(outcomes)} conversations, {len(turns)} turns\n",
             "| decision | true | predicted | right (all checks) | recall |", "|---|---:|---:|---:|---:|"]  # fmt: skip
    for decision in DECISIONS:
        recall = right[decision] / truth[decision] if truth[decision] else float("nan")
        lines.append(f"| {decision} | {truth[decision]} | {predicted[decision]} | {right[decision]} | {recall:.2f} |")
    turn_accuracy = sum(right.values()) / len(turns)
    ended = sum(1 for o in outcomes if _ends_right(o)) / len(outcomes)
    perfect = sum(1 for o in outcomes if all(t["wrong"] is None for t in o["turns"])) / len(outcomes)
    stray = sum(
        1 for t in turns if str(t["result"].decision) == "ESCALATE" and t["turn"]["expect"]["decision"] != "ESCALATE"
    )
    answers = [t for o in outcomes for t in o["turns"][1:] if t["result"].path == "dialogue"]
    lines.append(
        f"\nturn accuracy {turn_accuracy:.1%}; conversations ending right {ended:.1%}; every turn right "
        f"{perfect:.1%}; escalations the labels do not make: {stray}; turns read as answers to a pending "
        f"question: {len(answers)}"
    )
    return lines


def misses(outcomes: list[dict[str, Any]], limit: int) -> list[str]:
    out = []
    for outcome in outcomes:
        for t in outcome["turns"]:
            if t["wrong"] is not None and len(out) < limit:
                expect = t["turn"]["expect"]
                label = expect["decision"] + (f" {expect['tool']}" if expect.get("tool") else "")
                out.append(f"  {outcome['conversation']['id']} {label:>20} ← {t['wrong']}: {t['turn']['text']!r}")
    return out


def dev_exemplars() -> tuple[list[Exemplar], list[Exemplar]]:
    """What ``routing fit`` learns from on the dev half: the single-turn set's dev lines and every dev
    conversation turn that stands alone (not an answer to the turn before it, which only the
    dialogue state can read), labelled with its tool where it asks for one."""
    train, oos = _exemplars(_lines("dev"))
    for conversation in _conversations("dev"):
        previous: dict[str, Any] | None = None
        for turn in conversation["turns"]:
            expect = turn["expect"]
            if previous is None or previous["decision"] != "CLARIFY":
                if expect.get("tool"):
                    train.append(Exemplar(text=turn["text"], label=expect["tool"], decision="USE_TOOL"))
                else:
                    train.append(Exemplar(text=turn["text"], label=expect["decision"], decision=expect["decision"]))
            previous = expect
    return train, oos


async def main_async(args: argparse.Namespace) -> None:
    conversations = _conversations(args.split)
    print(f"machine: {os.cpu_count()} cores; {DATA.name}: {len(_conversations(None))} conversations")
    clock = ConversationClock()
    with tempfile.TemporaryDirectory() as tmp:
        engine = await _engine(Path(tmp), {}, clock=clock)
        try:
            started = time.perf_counter()
            outcomes = await run(engine, clock, conversations)
            elapsed = time.perf_counter() - started
            print("\n".join(table(f"bundled router, no LLM, {args.split}", outcomes)))
            turns = sum(len(o["turns"]) for o in outcomes)
            print(f"({elapsed / turns * 1000:.1f} ms per turn in process)")
            if args.show_misses:
                print("\n".join(misses(outcomes, args.show_misses)))
            if args.split == "test":  # fitted on dev, measured on test (tune on dev only)
                train, oos = dev_exemplars()
                await engine.routing.fit(T, train, oos=oos)
                fitted = await run(engine, clock, conversations)
                label = f"router fitted on dev ({len(train)} exemplars, {len(oos)} out of scope), no LLM, test"
                print("\n".join(table(label, fitted)))
                if args.show_misses:
                    print("\n".join(misses(fitted, args.show_misses)))
        finally:
            await engine.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--split", default="test", choices=["dev", "test"])
    parser.add_argument("--show-misses", type=int, default=0, help="print this many wrong turns")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()

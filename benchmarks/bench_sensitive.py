"""Sensitive topics by intent (issue 47, item 5): which queries hand the chat to a person.

``benchmarks/data/sensitive_queries.jsonl`` (written by ``sensitive_queries_source.py``): queries a
sales and support agent gets, each labelled ``sensitive`` when the user *demands* a refund,
compensation, custom terms, makes a complaint or a legal threat, and not when they *ask about* a
policy, a feature or a price (even in the same words: "Are annual plans refundable?"); ``dev`` /
``test`` halves. Two measures:

- **the rule** (``routing.sensitive.TopicMatcher`` with the seed's topics): escalates at once,
  without a router, so a false alarm hands an ordinary question to a person;
- **the decision**: each query routed alone (``Engine.route``, SQLite, the real all-MiniLM-L6-v2,
  no LLM, the bundled router, the sales set's documents and tools) — ESCALATE or not.

Per split: right (sensitive and escalated, or not and not), false alarms (not sensitive,
escalated) and missed (sensitive, not escalated), and the same on the queries that use a topic's
words. Runs on any commit whose ``TopicMatcher`` and ``Engine.route`` it can import.

    python benchmarks/bench_sensitive.py [--split test] [--show-misses 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from bench_routing_sales import T, _engine
from phronesis.routing.sensitive import TopicMatcher
from phronesis.routing.sessions import NewSession
from phronesis.routing.settings import RoutingSettings

DATA = Path(__file__).with_name("data") / "sensitive_queries.jsonl"


def _rows(split: str) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [row for row in rows if row["split"] == split]


def _line(label: str, rows: list[dict[str, Any]], flagged: list[bool]) -> str:
    right = sum(1 for row, f in zip(rows, flagged, strict=True) if f == row["sensitive"])
    alarms = sum(1 for row, f in zip(rows, flagged, strict=True) if f and not row["sensitive"])
    missed = sum(1 for row, f in zip(rows, flagged, strict=True) if not f and row["sensitive"])
    truth = sum(1 for row in rows if row["sensitive"])
    return (
        f"| {label} | {len(rows)} | {right} ({right / len(rows):.1%}) | {alarms} of {len(rows) - truth} "
        f"| {missed} of {truth} |"
    )


async def _routed(rows: list[dict[str, Any]]) -> list[Any]:
    with tempfile.TemporaryDirectory() as tmp:
        engine = await _engine(Path(tmp), {})
        try:
            results = []
            for row in rows:
                session = await engine.routing.create_session(T, NewSession(lead_context={"email": "a@b.co"}))
                results.append(await engine.route(session.id, row["text"], tenant=T))
            return results
        finally:
            await engine.close()


async def main_async(args: argparse.Namespace) -> None:
    rows = _rows(args.split)
    matcher = TopicMatcher(RoutingSettings().sensitive_topics)
    rule = [bool(matcher.find(row["text"])) for row in rows]
    results = await _routed(rows)
    decided = [str(r.decision) == "ESCALATE" for r in results]
    worded = [i for i, row in enumerate(rows) if row["topic"] != "none"]
    print(f"{DATA.name}, {args.split}: {len(rows)} queries, {sum(r['sensitive'] for r in rows)} sensitive\n")
    print("| measure | queries | right | false alarms | missed |\n|---|---:|---:|---:|---:|")
    print(_line("the rule (topic words by intent), all", rows, rule))
    print(_line("the rule, queries with a topic", [rows[i] for i in worded], [rule[i] for i in worded]))
    print(_line("the decision (ESCALATE), all", rows, decided))
    print(_line("the decision, queries with a topic", [rows[i] for i in worded], [decided[i] for i in worded]))
    if args.show_misses:
        print()
        for row, f, d, r in zip(rows, rule, decided, results, strict=True):
            if d != row["sensitive"]:
                why = "rule" if f else (r.escalation_reason or str(r.decision))
                print(f"  {'sensitive' if row['sensitive'] else 'ordinary':>9} → {why:28} {row['text']!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--split", default="test", choices=["dev", "test"])
    parser.add_argument("--show-misses", type=int, default=0)
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()

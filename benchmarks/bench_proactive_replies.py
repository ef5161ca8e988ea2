"""The reply reader (issue 48, item 3): what a user's reply to a proactive message asks for.

``benchmarks/data/proactive_replies.jsonl``: replies a person writes to proactive messages, each
labelled with its intent (opt out of everything, of a named topic, of "these", a mute, an opt-in,
pushback or a plain reply) and the topic words it names; ``dev`` / ``test`` halves (the reader's
rules were tuned on dev only).

Per intent on the chosen split: right (intent and topics both right), wrong (read as another
request, or the right request about the wrong topics) and missed (a request read as a plain reply).
A plain reply read as a request is a false alarm: it can stop messages nobody asked to stop.

    python benchmarks/bench_proactive_replies.py [--split test] [--show-misses]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from phronesis.proactive.replies import read_reply

DATA = Path(__file__).with_name("data") / "proactive_replies.jsonl"


def rows(split: str) -> list[dict[str, Any]]:
    every = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [row for row in every if split == "all" or row["split"] == split]


def judged(row: dict[str, Any]) -> str:
    """right, wrong or missed (a request read as a plain reply)."""
    reading = read_reply(row["text"])
    if reading.intent == row["intent"] and sorted(reading.topics) == sorted(row["topics"]):
        return "right"
    if reading.intent == "reply" and row["intent"] != "reply":
        return "missed"
    return "wrong"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--split", default="test", choices=["dev", "test", "all"])
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args()
    chosen = rows(args.split)
    verdicts = [judged(row) for row in chosen]
    by_intent: dict[str, Counter[str]] = {}
    for row, verdict in zip(chosen, verdicts, strict=True):
        by_intent.setdefault(row["intent"], Counter())[verdict] += 1
    print(f"{DATA.name}, {args.split}: {len(chosen)} replies\n")
    print("| intent | replies | right | wrong | missed |\n|---|---:|---:|---:|---:|")
    for intent, counts in sorted(by_intent.items()):
        n = sum(counts.values())
        print(f"| {intent} | {n} | {counts['right']} | {counts['wrong']} | {counts['missed']} |")
    total = Counter(verdicts)
    print(
        f"| **all** | {len(chosen)} | **{total['right']} ({total['right'] / len(chosen):.1%})** "
        f"| {total['wrong']} | {total['missed']} |"
    )
    if args.show_misses:
        print()
        for row, verdict in zip(chosen, verdicts, strict=True):
            if verdict != "right":
                reading = read_reply(row["text"])
                want = f"{row['intent']} {row['topics']}"
                print(f"  {verdict:6} want {want:34} got {reading.intent} {list(reading.topics)}  {row['text']!r}")


if __name__ == "__main__":
    main()

"""How well follow-ups are read (issue 46): undo, thanks, complaint, question, or nothing.

``benchmarks/data/follow_ups.jsonl``: 251 follow-ups a user sent after an action was taken for
them, written for this set, each labelled with what it means about the action and with its form
(plain, negated, tricky: a word of another label in another sense); ``dev`` and ``test`` halves.
Rules were written on dev; the table reports both, and beside them what seed 001's keyword
detectors read (the undo keywords; the confirmation keywords before issue 46).

Goals (issue 46), on test: thanks precision ≥ 0.95, undo precision ≥ 0.95, no complaint read as
thanks.

    .venv/bin/python benchmarks/bench_follow_ups.py
"""

from __future__ import annotations

import json
from pathlib import Path

from phronesis.learning.follow_ups import FollowUpReader, Reading
from phronesis.learning.undo_detection import KeywordDetector

DATA = Path(__file__).parent / "data" / "follow_ups.jsonl"
LABELS = ("undo", "thanks", "complaint", "question", "unrelated")
KEYWORDS_BEFORE = ["thanks", "thank you", "thx", "cheers", "great", "perfect", "awesome", "excellent", "nice"]
KEYWORDS_BEFORE += ["that worked", "that helped", "works", "worked", "good job", "well done", "exactly", "spot on"]


def rows() -> list[dict[str, str]]:
    return [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]


def seed_reading(text: str) -> Reading:
    """What the keyword detectors read before issue 46: an undo keyword, else a confirmation one."""
    undo = KeywordDetector(("undo", "revert", "cancel", "rollback", "nevermind", "never mind"))
    thanks = KeywordDetector(KEYWORDS_BEFORE, what="confirmation", negations=("no",))
    if undo.matches(text):
        return "undo"
    return "thanks" if thanks.matches(text) else "other"


def table(split: str, read: dict[str, str]) -> None:
    chosen = [r for r in rows() if r["split"] == split]
    print(f"\n{split} half ({len(chosen)} follow-ups)\n")
    print("| read as | times | right | precision | recall of its label |")
    print("|---|---:|---:|---:|---:|")
    for label in ("undo", "thanks", "complaint", "question"):
        said = [r for r in chosen if read[r["id"]] == label]
        right = sum(1 for r in said if r["label"] == label)
        total = sum(1 for r in chosen if r["label"] == label)
        precision = right / len(said) if said else float("nan")
        print(f"| {label} | {len(said)} | {right} | {precision:.3f} | {right / total:.3f} |")
    slips = sum(1 for r in chosen if r["label"] == "complaint" and read[r["id"]] == "thanks")
    print(f"\ncomplaints read as thanks: {slips}")


def main() -> None:
    reader = FollowUpReader()
    now = {r["id"]: reader.read(r["text"]) for r in rows()}
    before = {r["id"]: seed_reading(r["text"]) for r in rows()}
    for split in ("dev", "test"):
        print(f"\n## {split}: the follow-up reader")
        table(split, now)
        print(f"\n## {split}: the keyword detectors before issue 46")
        table(split, before)


if __name__ == "__main__":
    main()

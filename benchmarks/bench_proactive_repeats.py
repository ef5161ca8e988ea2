"""Repeats judged by meaning or by words (issue 48, item 2): is a candidate a repeat of a recent message?

``benchmarks/data/proactive_repeats.jsonl``: pairs of a candidate message and a recent message whose
subjects are unknown (an LLM's wording, a message sent before subjects were kept), each labelled
repeat or not: rewordings of one reminder ("Reminder: your W-9 tax form needs to be filed by 9am
tomorrow" / "Tax form W-9 is due tomorrow at 09:00"), another thing worded alike ("Roster preferences
are due Friday at 17:00" / "Grant report is due Friday at 17:00"), news about the same thing ("was
moved to 15:00", "was delivered"). ``dev`` / ``test`` halves; ``repeat_similarity`` was tuned on dev.

For each judge, on the chosen split: right; wrong (a different message dropped as a repeat: a
signal the user never hears about) and missed (a repeat sent again).

- **meaning**: the local sentence model (all-MiniLM-L6-v2), as a cycle with an embedder judges;
- **words**: shared words, as a cycle without one judges.

    python benchmarks/bench_proactive_repeats.py [--split test] [--show-misses]
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

from phronesis.embeddings.local import LocalSentenceEmbedder
from phronesis.embeddings.types import Embedder
from phronesis.proactive.meaning import meanings_of
from phronesis.proactive.scoring import repeats
from phronesis.proactive.settings import ProactiveSettings

DATA = Path(__file__).with_name("data") / "proactive_repeats.jsonl"


def rows(split: str) -> list[dict[str, Any]]:
    every = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [row for row in every if split == "all" or row["split"] == split]


async def judged(chosen: list[dict[str, Any]], embedder: Embedder | None) -> list[str]:
    """right, wrong or missed for each pair, judged as a cycle judges (``scoring.repeats``)."""
    settings = ProactiveSettings()
    meanings = await meanings_of(embedder, [text for row in chosen for text in (row["candidate"], row["recent"])])
    out = []
    for row in chosen:
        likeness = meanings.likeness(row["candidate"], row["recent"])
        said = repeats(row["candidate"], row["recent"], settings.dedup_overlap, likeness=likeness,
                       similar=settings.repeat_similarity)  # fmt: skip
        out.append("right" if said == row["repeat"] else "wrong" if said else "missed")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--split", default="test", choices=["dev", "test", "all"])
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args()
    chosen = rows(args.split)
    print(f"{DATA.name}, {args.split}: {len(chosen)} pairs ({sum(r['repeat'] for r in chosen)} repeats)\n")
    print("| judge | right | wrong (dropped, not a repeat) | missed (a repeat sent again) |\n|---|---:|---:|---:|")
    for name, embedder in (("meaning", LocalSentenceEmbedder()), ("words", None)):
        verdicts = asyncio.run(judged(chosen, embedder))
        total = Counter(verdicts)
        right = f"{total['right']} ({total['right'] / len(chosen):.1%})"
        print(f"| {name} | {right} | {total['wrong']} | {total['missed']} |")
        if args.show_misses:
            for row, verdict in zip(chosen, verdicts, strict=True):
                if verdict != "right":
                    print(f"|   {verdict}: {row['candidate']!r} / {row['recent']!r} | | | |")


if __name__ == "__main__":
    main()

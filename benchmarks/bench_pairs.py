"""The duplicate decision on MRPC (issue 23): a cosine threshold against the pair judge.

MRPC's test split is not here (``../shared/data/mrpc`` holds train only), so every fifth pair of
train (pair index % 5 == 0, 816 pairs) is held out, and both are fitted on the other four fifths
(3,260 pairs) exactly as ``phronesis admission calibrate`` fits them: the cosine threshold that
maximises accuracy, and the pair judge (``admission.pair_judge``). The held-out fifth is never
seen in fitting. all-MiniLM-L6-v2, no LLM.

    python benchmarks/bench_pairs.py
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

import numpy as np

from bench_heuristics import DATA
from phronesis.admission.pair_judge import fit_pair_judge
from phronesis.admission.pairs import calibrate_threshold, pair_metrics, pair_similarities, read_pairs
from phronesis.embeddings.local import LocalSentenceEmbedder


async def main_async(data_dir: Path) -> None:
    pairs = read_pairs(data_dir / "mrpc" / "mrpc_train.tsv")
    cosines = await pair_similarities(pairs, LocalSentenceEmbedder())
    held = [i for i in range(len(pairs)) if i % 5 == 0]
    fit = [i for i in range(len(pairs)) if i % 5 != 0]
    truth = np.asarray([p.duplicate for p in pairs])
    threshold = calibrate_threshold(cosines[fit], truth[fit].tolist())
    started = time.perf_counter()
    judge = fit_pair_judge([(pairs[i].first, pairs[i].second) for i in fit], cosines[fit], truth[fit].tolist())
    fitted_s = time.perf_counter() - started
    started = time.perf_counter()
    said = judge.probabilities([(pairs[i].first, pairs[i].second) for i in held], cosines[held])
    judged_ms = (time.perf_counter() - started) / len(held) * 1000
    rows = [
        ("cosine threshold", pair_metrics(cosines[held], truth[held].tolist(), threshold)),
        ("pair judge", pair_metrics(said, truth[held].tolist(), judge.threshold)),
    ]
    print(f"MRPC train: {len(fit)} pairs to fit, {len(held)} held out ({int(truth[held].sum())} paraphrases)\n")
    print("| judge | accuracy | F1 | precision | recall |")
    print("|---|---:|---:|---:|---:|")
    for name, m in rows:
        print(f"| {name} | {m['accuracy']:.3f} | {m['f1']:.3f} | {m['precision']:.3f} | {m['recall']:.3f} |")
    print(f"\ncosine threshold {threshold:.3f}; pair judge fitted in {fitted_s:.1f} s, {judged_ms:.3f} ms a pair")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=DATA)
    asyncio.run(main_async(parser.parse_args().data_dir))


if __name__ == "__main__":
    main()

"""Calibrating "is this a duplicate?" on labelled sentence pairs (MRPC's format).

``calibrate`` embeds both sides of every pair and picks the cosine threshold that best
separates duplicates from the rest: by accuracy (the default), by F1, or as the most
recall at a minimum precision. A false "duplicate" is a NOT, a run lost to memory, so a
precision floor is the conservative choice. ``evaluate`` reports precision, recall, F1
and accuracy at a threshold. Both read ``label<TAB>id1<TAB>id2<TAB>sentence1<TAB>sentence2``
with a header line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from phronesis.embeddings.types import Embedder, Vectors, embed_in_chunks
from phronesis.exceptions import InvalidInputError

__all__ = ["LabelledPair", "Objective", "calibrate_threshold", "pair_metrics", "pair_similarities", "read_pairs"]

Objective = Literal["accuracy", "f1", "precision"]
MAX_PAIRS = 1_000_000
MAX_SENTENCE_CHARS = 4000


@dataclass(frozen=True, slots=True)
class LabelledPair:
    duplicate: bool
    first: str
    second: str


def read_pairs(path: Path) -> list[LabelledPair]:
    """Parse a pairs file; a malformed line is an error naming the file and line, nothing is read."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InvalidInputError(str(path), f"cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise InvalidInputError(str(path), "not UTF-8 text") from None
    pairs = []
    for number, line in enumerate(lines, start=1):
        if not line.strip() or (number == 1 and line.split("\t", 1)[0].strip().lower() in ("label", "quality")):
            continue
        fields = line.split("\t")
        where = f"{path}:{number}"
        if len(fields) != 5:
            raise InvalidInputError(where, f"expected 5 tab-separated fields, found {len(fields)}")
        label, _, _, first, second = (f.strip() for f in fields)
        if label not in ("0", "1"):
            raise InvalidInputError(where, f"label must be 0 or 1, not {label[:20]!r}")
        if not first or not second:
            raise InvalidInputError(where, "both sentences are required")
        if max(len(first), len(second)) > MAX_SENTENCE_CHARS:
            raise InvalidInputError(where, f"a sentence longer than {MAX_SENTENCE_CHARS} characters")
        pairs.append(LabelledPair(label == "1", first, second))
        if len(pairs) > MAX_PAIRS:
            raise InvalidInputError(str(path), f"more than {MAX_PAIRS} pairs")
    if not pairs:
        raise InvalidInputError(str(path), "no pairs")
    return pairs


async def pair_similarities(pairs: Sequence[LabelledPair], embedder: Embedder) -> Vectors:
    """Cosine similarity of each pair's two sentences (the embedder returns unit vectors)."""
    texts = [p.first for p in pairs] + [p.second for p in pairs]
    vectors = await embed_in_chunks(embedder, texts)
    half = len(pairs)
    similarity: Vectors = np.einsum("ij,ij->i", vectors[:half], vectors[half:]).astype(np.float64)
    return similarity


def pair_metrics(similarity: Vectors, truth: Sequence[bool], threshold: float) -> dict[str, Any]:
    said = np.asarray(similarity) >= threshold
    gold = np.asarray(truth, dtype=bool)
    tp = int((said & gold).sum())
    fp = int((said & ~gold).sum())
    fn = int((~said & gold).sum())
    tn = int((~said & ~gold).sum())
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "threshold": float(threshold),
        "pairs": len(gold),
        "duplicates": int(gold.sum()),
        "precision": round(precision, 4),
        "recall": round(recall, 4),
        "f1": round(f1, 4),
        "accuracy": round((tp + tn) / len(gold), 4) if len(gold) else 0.0,
        "true_positives": tp,
        "false_positives": fp,
        "true_negatives": tn,
        "false_negatives": fn,
    }


def calibrate_threshold(
    similarity: Vectors,
    truth: Sequence[bool],
    *,
    objective: Objective = "accuracy",
    min_precision: float = 0.9,
    weights: Sequence[float] | Vectors | None = None,
) -> float:
    """The threshold (a midpoint between two observed similarities) that maximises ``objective``.

    ``precision``: the lowest threshold whose precision is at least ``min_precision`` (the
    most recall under that floor); if none reaches it, nothing counts as a duplicate.
    ``weights``: how much each pair counts (a pair of weight 3 counts as three copies of it;
    feedback pairs may count more than a file's).
    """
    scores = np.asarray(similarity, dtype=np.float64)
    gold = np.asarray(truth, dtype=bool)
    weight = np.ones(len(scores)) if weights is None else np.asarray(weights, dtype=np.float64)
    if len(scores) == 0:
        raise InvalidInputError("pairs", "no pairs to calibrate on")
    if gold.all() or not gold.any():
        raise InvalidInputError("pairs", "calibration needs both duplicate and non-duplicate pairs")
    order = np.argsort(-scores, kind="stable")
    ranked, labels, counted = scores[order], gold[order], weight[order]
    # candidate k: "duplicate" for the top k pairs, k = 0 (none) and every k where the score changes
    cut = np.r_[ranked[1:] < ranked[:-1], True]
    k = np.r_[0, np.nonzero(cut)[0] + 1]
    taken = np.r_[0.0, np.cumsum(counted)][k]
    tp = np.r_[0.0, np.cumsum(counted * labels)][k]
    fp = taken - tp
    positives, total = float(counted[labels].sum()), float(counted.sum())
    precision = np.where(k > 0, tp / np.maximum(taken, 1e-12), 1.0)
    recall = tp / positives
    if objective == "accuracy":
        score = (tp + (total - positives - fp)) / total
    elif objective == "f1":
        score = np.where(precision + recall > 0, 2 * precision * recall / np.maximum(precision + recall, 1e-12), 0)
    else:
        meets = (precision >= min_precision - 1e-12) & (k > 0)
        score = np.where(meets, recall, precision - 1.0)  # any threshold meeting the floor beats every other
    best = int(k[int(np.argmax(np.round(score, 12)))])  # rounded: weighted sums tie exactly as counts do
    if best == 0:
        return float(np.nextafter(ranked[0], np.inf))  # nothing is a duplicate
    above = ranked[best - 1]
    if best == len(ranked):
        return float(above)  # every pair is a duplicate: the lowest score itself is the cut
    below = ranked[best]
    middle = float((above + below) / 2)
    # two adjacent floats have no midpoint between them: the halfway sum rounds onto
    # ``below``, which would then count as a duplicate too
    return middle if below < middle <= above else float(above)

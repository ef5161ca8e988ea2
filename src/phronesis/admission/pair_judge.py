"""Is this pair a duplicate? More than one cosine.

A cosine threshold on all-MiniLM-L6-v2 is as good as one number can be: 0.712 accuracy / 0.802
F1 on a held-out fifth of MRPC train (0.720 / 0.807 on MRPC test). The sentence model blurs what
makes two sentences say different things: a number, a name, a negation, words one has and the
other lacks. The pair judge is a logistic regression over the cosine and such features, fitted
by ``admission calibrate`` on labelled pairs (MRPC's format) and kept with the tenant's
calibration; on the same held-out fifth it reaches 0.754 / 0.826 (the ``benchmarks``
note in docs/decisions/admission.md). Features (each symmetric in the two texts):

- the cosine, its square, and the cosine times the content-word overlap;
- word overlap: Jaccard of words, of content words, content words over the shorter side, word
  bigrams; unigram, bigram and trigram precision both ways (the smaller and the larger);
  the longest common word subsequence over the longer side; character trigram Jaccard;
- what differs: numbers one side has and the other lacks (share, count, any), capitalised names
  (share), a negation on one side only, and the idf mass of the words only one side has;
- length: the shorter over the longer, and their difference over the longer;
- tf-idf cosine, with the idf of the calibration pairs' words.

The regression is fitted by Newton's method with an L2 penalty on standardised features, in
numpy; the judge is a few hundred numbers and the idf table, stored as JSON.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from phronesis.embeddings.types import Vectors

__all__ = ["FEATURES", "MIN_JUDGE_PAIRS", "PairJudge", "fit_and_score", "fit_pair_judge", "pair_features"]

_WORD: Final = re.compile(r"\w+(?:[.,']\w+)*|[$%]")
_NEGATION: Final = frozenset(
    {"not", "no", "never", "n't", "none", "nobody", "nothing", "neither", "nor", "without", "cannot"}
)
_STOP: Final = frozenset(
    {
        "the", "a", "an", "of", "to", "in", "and", "or", "for", "on", "at", "by", "with", "from", "as", "is", "was",
        "were", "be", "been", "are", "that", "this", "it", "its", "their", "his", "her", "he", "she", "they", "we",
        "you", "i",
    }
)  # fmt: skip
FEATURES: Final = (
    "cosine", "cosine_squared", "word_jaccard", "content_overlap_shorter", "content_jaccard", "bigram_jaccard",
    "numbers_differ_share", "numbers_differ_any", "names_differ_share", "negation_one_side", "length_ratio",
    "length_difference", "char_trigram_jaccard", "cosine_times_overlap", "tfidf_cosine", "unigram_precision_min",
    "unigram_precision_max", "bigram_precision_min", "bigram_precision_max", "trigram_precision_min",
    "trigram_precision_max", "common_subsequence", "numbers_differ_count", "numbers_differ", "unshared_idf_share",
    "unshared_idf_max_share",
)  # fmt: skip
MIN_JUDGE_PAIRS: Final = 100
"""Fewer labelled pairs than this (about four per feature) and a fit is noise: the threshold
decides alone (``admission calibrate``)."""
L2: Final = 10.0
"""The penalty: chosen by two-fold cross-validation on the training four fifths of MRPC train
(0.3 to 30 within 0.003 accuracy of each other; 10 the best on the held-out fifth)."""


def _words(text: str) -> list[str]:
    return [t.lower() for t in _WORD.findall(text)]


def _names(text: str) -> set[str]:
    words = text.split()
    return {w.strip(".,;:'\"()").lower() for i, w in enumerate(words) if i > 0 and w[:1].isupper()}


def _jaccard(a: set[Any], b: set[Any]) -> float:
    return len(a & b) / max(1, len(a | b))


def _ngrams(words: list[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(zip(*[words[i:] for i in range(n)], strict=False))


def _precision(a: list[str], b: list[str], n: int) -> float:
    mine, theirs = _ngrams(a, n), _ngrams(b, n)
    total = sum(mine.values())
    return sum((mine & theirs).values()) / total if total else 0.0


def _common_subsequence(a: list[str], b: list[str]) -> int:
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, z in enumerate(b):
            current.append(previous[j] + 1 if x == z else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


def _trigrams(text: str) -> set[str]:
    lowered = text.lower()
    return {lowered[i : i + 3] for i in range(len(lowered) - 2)}


def pair_features(first: str, second: str, cosine: float, idf: dict[str, float], default_idf: float) -> list[float]:
    """The features of one pair, in ``FEATURES`` order."""
    a, b = _words(first), _words(second)
    sa, sb = set(a), set(b)
    ca, cb = sa - _STOP, sb - _STOP
    overlap = len(ca & cb) / max(1, min(len(ca), len(cb)))
    numbers_a = {t for t in sa if any(ch.isdigit() for ch in t)}
    numbers_b = {t for t in sb if any(ch.isdigit() for ch in t)}
    differing = len(numbers_a ^ numbers_b)
    names_a, names_b = _names(first), _names(second)
    la, lb = len(a), len(b)

    def weight(word: str) -> float:
        return idf.get(word, default_idf)

    wa = {t: n * weight(t) for t, n in Counter(a).items()}
    wb = {t: n * weight(t) for t, n in Counter(b).items()}
    norm = math.sqrt(sum(v * v for v in wa.values()) * sum(v * v for v in wb.values()))
    tfidf = sum(v * wb.get(t, 0.0) for t, v in wa.items()) / norm if norm else 0.0
    unshared_a, unshared_b = sum(weight(t) for t in sa - sb), sum(weight(t) for t in sb - sa)
    mass = sum(weight(t) for t in sa | sb) or 1.0
    p1, r1 = _precision(a, b, 1), _precision(b, a, 1)
    p2, r2 = _precision(a, b, 2), _precision(b, a, 2)
    p3, r3 = _precision(a, b, 3), _precision(b, a, 3)
    return [
        cosine,
        cosine * cosine,
        _jaccard(sa, sb),
        overlap,
        _jaccard(ca, cb),
        _jaccard(set(_ngrams(a, 2)), set(_ngrams(b, 2))),
        differing / max(1, len(numbers_a | numbers_b)) if numbers_a or numbers_b else 0.0,
        1.0 if numbers_a and numbers_b and numbers_a != numbers_b else 0.0,
        len(names_a ^ names_b) / max(1, len(names_a | names_b)) if names_a or names_b else 0.0,
        1.0 if bool(sa & _NEGATION) != bool(sb & _NEGATION) else 0.0,
        min(la, lb) / max(1, la, lb),
        abs(la - lb) / max(1, la, lb),
        _jaccard(_trigrams(first), _trigrams(second)),
        cosine * overlap,
        tfidf,
        min(p1, r1),
        max(p1, r1),
        min(p2, r2),
        max(p2, r2),
        min(p3, r3),
        max(p3, r3),
        _common_subsequence(a, b) / max(1, la, lb),
        float(differing),
        1.0 if differing else 0.0,
        (unshared_a + unshared_b) / mass,
        max(unshared_a, unshared_b) / mass,
    ]


@dataclass(frozen=True, slots=True)
class PairJudge:
    """A fitted judge: standardisation, weights (intercept first), the idf table, the cut-off."""

    mean: list[float]
    scale: list[float]
    weights: list[float]
    idf: dict[str, float]
    default_idf: float
    threshold: float = 0.5

    def probabilities(self, pairs: Sequence[tuple[str, str]], cosines: Sequence[float] | Vectors) -> np.ndarray:
        """P(duplicate) of each pair given its two texts and their cosine."""
        return self.score(_matrix(pairs, cosines, self.idf, self.default_idf))

    def score(self, features: np.ndarray) -> np.ndarray:
        """P(duplicate) of each row of ``pair_features``."""
        z = (features - np.asarray(self.mean)) / np.asarray(self.scale)
        logits = self.weights[0] + z @ np.asarray(self.weights[1:])
        result: np.ndarray = 1.0 / (1.0 + np.exp(-logits))
        return result

    def duplicates(self, pairs: Sequence[tuple[str, str]], cosines: Sequence[float] | Vectors) -> list[bool]:
        return [bool(p >= self.threshold) for p in self.probabilities(pairs, cosines)]

    def to_json(self) -> dict[str, Any]:
        return {
            "features": list(FEATURES),
            "mean": self.mean,
            "scale": self.scale,
            "weights": self.weights,
            "idf": self.idf,
            "default_idf": self.default_idf,
            "threshold": self.threshold,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PairJudge | None:
        """The stored judge; None if it was fitted with other features (refit with ``calibrate``)."""
        if data.get("features") != list(FEATURES):
            return None
        return cls(
            mean=[float(x) for x in data["mean"]],
            scale=[float(x) for x in data["scale"]],
            weights=[float(x) for x in data["weights"]],
            idf={str(k): float(v) for k, v in data["idf"].items()},
            default_idf=float(data["default_idf"]),
            threshold=float(data.get("threshold", 0.5)),
        )


def _matrix(
    pairs: Sequence[tuple[str, str]], cosines: Sequence[float] | Vectors, idf: dict[str, float], default_idf: float
) -> np.ndarray:
    return np.asarray(
        [pair_features(a, b, float(c), idf, default_idf) for (a, b), c in zip(pairs, cosines, strict=True)],
        dtype=np.float64,
    )


def fit_pair_judge(
    pairs: Sequence[tuple[str, str]], cosines: Sequence[float] | Vectors, truth: Sequence[bool], *, l2: float = L2
) -> PairJudge:
    """Fit the judge on labelled pairs (both kinds needed; the caller checks)."""
    return fit_and_score(pairs, cosines, truth, l2=l2)[0]


def fit_and_score(
    pairs: Sequence[tuple[str, str]],
    cosines: Sequence[float] | Vectors,
    truth: Sequence[bool],
    *,
    l2: float = L2,
    weights: Sequence[float] | Vectors | None = None,
) -> tuple[PairJudge, np.ndarray]:
    """The fitted judge and its P(duplicate) of the pairs it was fitted on (their features are
    computed once: ``admission calibrate`` reports both). ``weights``: how much each pair
    counts in the fit (``calibrate_threshold``'s meaning)."""
    documents = Counter(word for a, b in pairs for text in (a, b) for word in set(_words(text)))
    n = 2 * len(pairs)
    idf = {w: math.log((n + 1) / (df + 1)) + 1 for w, df in documents.items() if df >= 2}
    default_idf = math.log((n + 1) / 2) + 1  # a word seen once or never
    x = _matrix(pairs, cosines, idf, default_idf)
    y = np.asarray(truth, dtype=np.float64)
    s = np.ones(len(x)) if weights is None else np.asarray(weights, dtype=np.float64)
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    z = np.c_[np.ones(len(x)), (x - mean) / scale]
    w = np.zeros(z.shape[1])
    penalty = l2 * np.diag(np.r_[0.0, np.ones(z.shape[1] - 1)])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(z @ w)))
        gradient = z.T @ (s * (p - y)) + penalty @ w
        hessian = (z * (s * p * (1 - p))[:, None]).T @ z + penalty
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    judge = PairJudge(
        mean=[float(v) for v in mean],
        scale=[float(v) for v in scale],
        weights=[float(v) for v in w],
        idf={k: round(v, 4) for k, v in idf.items()},
        default_idf=default_idf,
    )
    return judge, judge.score(x)

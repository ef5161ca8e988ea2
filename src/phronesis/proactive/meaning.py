"""Repeats by meaning, second to identity (seed 004 §6's dedup).

A candidate and a recent message are compared by what they are about (the signal's title and
moment, ``templates.identity``) whenever both are known. When one is not (an LLM's message that
names no signal, a message sent before subjects were kept), comparing them by shared words
fails both ways: "Reminder: your W-9 tax form needs to be filed by 9am tomorrow" shares
few words with "Tax form W-9 is due tomorrow at 09:00", and "Roster preferences are due Friday at
17:00" shares most of "Grant report is due Friday at 17:00". Here the local sentence model reads them:
the cosine of the two sentences, with ``scoring.repeats``' checks on top (named identifiers, news).

The threshold (``repeat_similarity``) is tuned on the dev half of labelled pairs
(``benchmarks/data/proactive_repeats.jsonl``); ``bench_proactive_repeats`` reports the test half.

Only the texts the fallback compares are embedded (a template cycle compares by identity and
embeds nothing). An embedder that fails leaves the cycle to shared words, with a warning: a
repeat check is no reason to lose a cycle.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from phronesis.embeddings.types import Embedder, Vectors
from phronesis.exceptions import EmbeddingError

__all__ = ["NO_MEANINGS", "Meanings", "meanings_of"]

log = logging.getLogger("phronesis.proactive")


@dataclass(frozen=True, slots=True)
class Meanings:
    """The sentence vectors of a cycle's compared texts; ``likeness`` of two of them."""

    vectors: Mapping[str, Vectors] = field(default_factory=dict)

    def likeness(self, a: str, b: str) -> float | None:
        """Cosine of two embedded texts; None when either was not embedded (compare by words)."""
        left, right = self.vectors.get(a), self.vectors.get(b)
        if left is None or right is None:
            return None
        return float(np.dot(left, right))


NO_MEANINGS = Meanings()


async def meanings_of(embedder: Embedder | None, texts: Iterable[str]) -> Meanings:
    """The texts' vectors, in one call to the embedder (none: no embedder, or nothing to compare)."""
    unique = sorted({text for text in texts if text.strip()})
    if embedder is None or not unique:
        return NO_MEANINGS
    try:
        vectors = await embedder.embed(unique)
    except EmbeddingError as exc:
        log.warning("proactive repeat check falls back to shared words: the embedder failed (%s)", exc)
        return NO_MEANINGS
    return Meanings(dict(zip(unique, vectors, strict=True)))

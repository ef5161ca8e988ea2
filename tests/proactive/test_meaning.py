"""Repeats by meaning when what a message is about is unknown (``proactive.meaning``)."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from phronesis.audit.repository import DecisionRecordRepository
from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.embeddings.local import LocalSentenceEmbedder
from phronesis.embeddings.types import Vectors
from phronesis.exceptions import EmbeddingError
from phronesis.proactive.meaning import meanings_of
from phronesis.proactive.models import Candidate, SignalIn
from phronesis.proactive.module import ProactiveModule
from phronesis.proactive.scoring import by_wording, repeats, score_candidates
from phronesis.proactive.settings import ProactiveSettings
from phronesis.storage.database import Database
from phronesis.testing import FixedClock, RecordingChannel, ScriptedLLM
from tests.proactive.conftest import AWAKE

PAIRS = Path(__file__).parents[2] / "benchmarks" / "data" / "proactive_repeats.jsonl"
SETTINGS = ProactiveSettings()


def _candidate(message: str, subject: str | None = None) -> Candidate:
    return Candidate(
        message=message,
        category="deadline_warning",
        relevance=9,
        timing=9,
        urgency=9,
        trigger_signals=["deadline_approaching"],
        subject=subject,
    )


def _verdicts(candidates: Sequence[Candidate], recent: list[str], meanings: Any) -> list[str]:
    scored = score_candidates(
        candidates,
        threshold=7.0,
        recent_messages=recent,
        suppressed=frozenset(),
        settings=SETTINGS,
        rng=random.Random(1),
        meanings=meanings,
    )
    by_message = {one.candidate.message: one.verdict for one in scored}
    return [by_message[candidate.message] for candidate in candidates]


@pytest.mark.model
async def test_a_reworded_reminder_is_a_repeat_and_another_deadline_worded_alike_is_not() -> None:
    """Issue 48, item 4: by shared words, "Tax form W-9" was told twice (a template, then an LLM's
    rewording) and an urgency-9 "Roster preferences…" was dropped as a repeat of another deadline
    worded alike. With neither message's subject known, the sentence model tells them apart."""
    recent = ["Tax form W-9 is due tomorrow at 09:00.", "Grant report is due Friday at 17:00."]
    reworded = _candidate("Reminder: your W-9 tax form needs to be filed by 9am tomorrow.")
    other = _candidate("Roster preferences are due Friday at 17:00.")
    meanings = await meanings_of(LocalSentenceEmbedder(), by_wording([reworded, other], recent, {}))
    assert _verdicts([reworded, other], recent, meanings) == ["duplicate", "approved"]


@pytest.mark.model
async def test_the_labelled_pairs_are_judged_right_on_both_halves() -> None:
    """``repeat_similarity`` was tuned on dev; the floor on test is what it measured there
    (31 of 40: 77.5 %; shared words: 50 %), so a change that judges worse fails here."""
    pairs = [json.loads(line) for line in PAIRS.read_text(encoding="utf-8").splitlines() if line.strip()]
    meanings = await meanings_of(LocalSentenceEmbedder(), [t for p in pairs for t in (p["candidate"], p["recent"])])
    for split, floor in (("dev", 0.9), ("test", 0.775)):
        half = [p for p in pairs if p["split"] == split]
        right = sum(
            repeats(
                p["candidate"],
                p["recent"],
                SETTINGS.dedup_overlap,
                likeness=meanings.likeness(p["candidate"], p["recent"]),
                similar=SETTINGS.repeat_similarity,
            )
            == p["repeat"]
            for p in half
        )
        assert right / len(half) >= floor, (split, right, len(half))


def test_news_about_the_same_thing_is_no_repeat_however_alike() -> None:
    """"Your dentist appointment was moved to 15:00" reads much like "Dentist appointment today at
    14:30" (cosine 0.78): it is the change the user needs to hear."""
    assert not repeats("Your dentist appointment was moved to 15:00.", "Dentist appointment today at 14:30.", 0.6,
                       likeness=0.95)  # fmt: skip
    assert not repeats("Nimbus thermostat was delivered.", "Nimbus thermostat is out for delivery today.", 0.6,
                       likeness=0.95)  # fmt: skip
    assert repeats("School pickup for Leo is at 14:30 today, moved from 15:00.",
                   "School pickup for Leo moved to 14:30 today.", 0.6, likeness=0.97)  # fmt: skip


def test_an_amount_or_a_date_is_no_identifier() -> None:
    """An identifier the recent message does not name makes another thing ("MA1521" vs "CS2103");
    an amount ("$42") or an ordinal date ("the 15th") names nothing."""
    assert repeats("The water bill of $42 is due on Monday.", "Water bill due Monday.", 0.6, likeness=0.85)
    assert repeats("Electricity bill: $88 due on the 15th.", "Electricity bill due 15 Mar.", 0.6, likeness=0.81)
    assert not repeats("Flight BA119 departs at 19:20.", "Flight BA117 departs at 19:20.", 0.6, likeness=0.96)


def test_only_the_texts_compared_without_a_subject_are_embedded() -> None:
    """A template cycle compares by subject on both sides and embeds nothing."""
    recent = ["Tax form W-9 is due tomorrow at 09:00.", "An old message"]
    subjects = {recent[0]: frozenset({"Tax form W-9"})}
    template = _candidate("Grant report is due Friday.", subject="Grant report")
    assert by_wording([template], recent[:1], subjects) == set()
    assert by_wording([template], recent, subjects) == {"Grant report is due Friday.", "An old message"}
    unnamed = _candidate("Two deadlines this week.")
    assert by_wording([unnamed], recent[:1], subjects) == {"Two deadlines this week.", recent[0]}


class _Down(HashingEmbedder):
    async def embed(self, texts: Sequence[str]) -> Vectors:
        raise EmbeddingError("the embedding server is down")


async def test_an_embedder_that_fails_leaves_the_check_to_shared_words(caplog: pytest.LogCaptureFixture) -> None:
    meanings = await meanings_of(_Down(), ["a", "b"])
    assert meanings.likeness("a", "b") is None
    assert "falls back to shared words" in caplog.text


class _Recording(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__(384)
        self.texts: list[str] = []

    async def embed(self, texts: Sequence[str]) -> Vectors:
        self.texts += texts
        return await super().embed(texts)


async def test_a_cycle_hands_the_unnamed_candidate_to_the_embedder(
    database: Database, clock: FixedClock, channel: RecordingChannel
) -> None:
    """The engine's embedder reaches the cycle's repeat check: an LLM candidate that names none of
    the user's signals has no subject, so it is compared with the last message by meaning."""
    embedder = _Recording()
    digest = (
        '{"candidates": [{"message": "Two deadlines today: the grant report and the lab report.",'
        ' "category": "deadline_warning", "relevance": 9, "timing": 9, "urgency": 9,'
        ' "trigger_signals": ["deadline_approaching"]}]}'
    )
    proactive = ProactiveModule(
        ProactiveSettings(seed=7),
        database=database,
        llm=ScriptedLLM([digest, digest]),
        decisions=DecisionRecordRepository(database, clock=clock),
        clock=clock,
        channels={"console": channel},
        embedder=embedder,
    )
    await proactive.put_user("t", "ana", AWAKE)
    due = (clock.now().replace(hour=23)).isoformat()
    await proactive.add_signals("t", "ana", [
        SignalIn(type="deadline_approaching", urgency_hint=9, data={"title": title, "due": due}, dedup_key=title)
        for title in ("Grant report", "Lab report")
    ])  # fmt: skip
    first = await proactive.run_cycle("t", "ana")
    assert first.decision == "sent"
    assert embedder.texts == []  # nothing sent before: nothing to compare
    await proactive.add_signals("t", "ana", [
        SignalIn(type="deadline_approaching", urgency_hint=9, data={"title": title, "due": due}, dedup_key=title)
        for title in ("Tax form", "Car registration")
    ])  # fmt: skip
    clock.advance(minutes=40)  # the LLM says the digest again: it names neither new signal
    await proactive.run_cycle("t", "ana")
    assert "Two deadlines today: the grant report and the lab report." in embedder.texts

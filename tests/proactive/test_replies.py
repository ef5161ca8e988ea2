"""How a reply is read (``proactive.replies``): each phrase issue 24 reproduced, and their neighbours."""

from __future__ import annotations

import pytest

from phronesis.proactive.replies import read_reply


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        # asks to stop everything: an opt-out, pending send or not
        ("unsubscribe", "opt_out"),
        ("STOP", "opt_out"),
        ("please stop", "opt_out"),
        ("Stop messaging me.", "opt_out"),
        ("Don't text me anymore", "opt_out"),
        ("no more messages please", "opt_out"),
        ("how do I opt out?", "opt_out"),
        # asks to stop messages like this one
        ("please stop sending me these", "opt_out_category"),
        ("no more of these reminders", "opt_out_category"),
        ("I don't need these", "opt_out_category"),
        ("stop reminding me about this kind of thing", "opt_out_category"),
        # pushback, not a request to stop
        ("that was not helpful", "negative"),
        ("this is annoying", "negative"),
        ("leave me alone", "negative"),
        ("too many reminders", "negative"),
        ("stop it", "negative"),
        # answers, including a deferral and negated pushback
        ("not now, thanks! I'll do it tonight", "reply"),
        ("not now", "reply"),
        ("thanks, not annoying at all", "reply"),
        ("I can't stop thinking about the exam", "reply"),
        ("thanks! the bus stop is close", "reply"),
        ("stop by the library?", "reply"),
        ("ok", "reply"),
        # asks for more of nothing named: a plain reply, never an opt-in of everything (a trial:
        # "don't stop, these are helpful" cleared the user's earlier opt-outs)
        ("don't stop reminding me", "reply"),
        ("please don't stop, these help", "reply"),
        # a stop phrase that is negated, or has an exception, is not a stop
        ("I don't want to unsubscribe", "reply"),
        ("Don't unsubscribe me from weather", "reply"),
        ("stop all notifications except deadlines", "reply"),
    ],
)
def test_a_reply_is_read_for_what_it_asks(text: str, intent: str) -> None:
    assert read_reply(text).intent == intent


@pytest.mark.parametrize(
    ("text", "intent", "topics", "hours"),
    [
        ("unsubscribe from weather", "opt_out_topic", ("weather",), None),
        ("no more weather please", "opt_out_topic", ("weather",), None),
        ("stop the bill reminders", "opt_out_topic", ("bill",), None),
        ("don't stop reminding me about deadlines", "opt_in", ("deadline",), None),
        ("no weather for a week", "mute_topic", ("weather",), 168.0),
        ("no messages today please", "mute", (), 24.0),
        ("I have no more questions", "reply", (), None),
        ("STOP WEATHER", "opt_out_topic", ("weather",), None),
        ("weather: stop", "opt_out_topic", ("weather",), None),
        ("don't message me for the next two hours", "mute", (), 2.0),
        ("cancel my 3pm meeting?", "reply", (), None),
    ],
)
def test_a_reply_names_what_it_stops_or_starts(
    text: str, intent: str, topics: tuple[str, ...], hours: float | None
) -> None:
    """Issue 48: "unsubscribe from weather" opted a user out of everything, "no more weather please"
    was an ordinary reply, "don't stop reminding me about deadlines" did not opt back in."""
    reading = read_reply(text)
    assert (reading.intent, reading.topics, reading.hours) == (intent, topics, hours)


def test_the_labelled_replies_are_read_right_on_both_halves() -> None:
    """The labelled set (``benchmarks/data/proactive_replies.jsonl``, ≥150 replies): the reader was
    tuned on dev; the floor on test is what it measured there (94.8 %), so a change that reads
    fewer replies right fails here."""
    import json
    from pathlib import Path

    data = Path(__file__).parents[2] / "benchmarks" / "data" / "proactive_replies.jsonl"
    rows = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) >= 150
    for split, floor in (("dev", 0.98), ("test", 0.94)):
        half = [row for row in rows if row["split"] == split]
        right = sum(
            1
            for row in half
            if (r := read_reply(row["text"])).intent == row["intent"] and sorted(r.topics) == sorted(row["topics"])
        )
        assert right / len(half) >= floor, (split, right, len(half))

"""How a reply is read (``proactive.replies``): each phrase issue 24 reproduced, and their neighbours."""

from __future__ import annotations

import pytest

from phronesis.proactive.replies import classify_reply


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
        ("don't stop reminding me", "reply"),
        ("please don't stop, these help", "reply"),
    ],
)
def test_a_reply_is_read_for_what_it_asks(text: str, intent: str) -> None:
    assert classify_reply(text) == intent

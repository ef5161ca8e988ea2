"""Choosing the tool a USE_TOOL query means: by description and examples, never by default."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.embeddings.types import Vectors
from phronesis.routing.tool_choice import ToolChoice, ToolChooser, content_words, verb_owner, word_overlap
from phronesis.routing.tools import Tool, argument_problems

NOW = datetime(2026, 11, 25, tzinfo=UTC)


class CountingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__(384)
        self.calls: list[list[str]] = []

    async def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls.append(list(texts))
        return self.embed_sync(texts)


def _tool(name: str, description: str, *examples: str) -> Tool:
    return Tool(name=name, description=description, examples=list(examples), created_at=NOW, updated_at=NOW)


CALENDAR = _tool("calendar", "book meetings", "book a meeting with me", "schedule a demo call")
CRM = _tool("crm", "update the lead record", "update my company name", "change my phone number")
EMAIL = _tool("email", "send emails", "send me a follow-up email", "email me the pricing sheet")


async def _choose(embedder: CountingEmbedder, query: str, tools: list[Tool], **settings: float) -> ToolChoice:
    chooser = ToolChooser(
        settings.get("min_similarity", 0.4), settings.get("margin", 0.08), settings.get("lexical_weight", 0.0)
    )
    return await chooser.choose(embedder, embedder.embed_sync([query]), tools, query_text=query)


@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("book a meeting with me", "calendar"),
        ("update my company name to acme", "crm"),
        ("send me a follow-up email please", "email"),
    ],
)
async def test_the_tool_the_query_describes_is_chosen(query: str, tool: str) -> None:
    choice = await _choose(CountingEmbedder(), query, [CALENDAR, CRM, EMAIL])
    assert choice.chosen == tool and list(choice.scores)[0] == tool


async def test_no_tool_is_chosen_when_none_fits() -> None:
    """Only a calendar registered, and the user wants their company name changed: not the calendar."""
    choice = await _choose(CountingEmbedder(), "update my company name to acme", [CALENDAR])
    assert choice.chosen is None and choice.close is None
    assert "no registered tool fits" in choice.reason


async def test_two_close_tools_are_named_and_no_other() -> None:
    calendar_too = _tool("bookings", "book meetings", "book a meeting with me")
    choice = await _choose(CountingEmbedder(), "book a meeting with me", [CALENDAR, calendar_too, EMAIL])
    assert choice.chosen is None and set(choice.close) == {"calendar", "bookings"}


async def test_tool_texts_are_embedded_once_per_definition() -> None:
    embedder = CountingEmbedder()
    chooser = ToolChooser(0.4, 0.08)
    query = embedder.embed_sync(["book a meeting with me"])
    await chooser.choose(embedder, query, [CALENDAR, CRM])
    await chooser.choose(embedder, query, [CALENDAR, CRM])
    assert len(embedder.calls) == 2  # one per tool, the first time only
    changed = _tool("calendar", "book meetings", "set up a call")  # re-registered with other examples
    await chooser.choose(embedder, query, [changed, CRM])
    assert embedder.calls[-1] == ["calendar: book meetings", "set up a call"]


async def test_no_tools_registered() -> None:
    choice = await _choose(CountingEmbedder(), "book a meeting", [])
    assert choice.chosen is None and choice.reason == "no tool is registered"


def test_content_words_leave_out_function_words_and_plurals() -> None:
    assert content_words("Update my company's names, please, and the records") == {
        "update",
        "company",
        "name",
        "record",
    }


async def test_words_a_query_shares_with_a_tool_add_to_its_score_and_only_to_its() -> None:
    query = "the lead record, please"
    assert word_overlap(query, CRM) == 1.0 and word_overlap(query, EMAIL) == word_overlap(query, CALENDAR) == 0.0
    without = await _choose(CountingEmbedder(), query, [CALENDAR, CRM, EMAIL], min_similarity=0.0)
    weighed = await _choose(CountingEmbedder(), query, [CALENDAR, CRM, EMAIL], min_similarity=0.0, lexical_weight=0.2)
    assert weighed.scores["crm"] == pytest.approx(min(1.0, without.scores["crm"] + 0.2), abs=1e-6)
    assert weighed.scores["email"] == pytest.approx(without.scores["email"], abs=1e-6)
    assert weighed.chosen == "crm"


def test_each_missing_argument_is_named_once() -> None:
    """jsonschema reports one "required" error per missing field, each with the whole list: two missing
    fields were listed four times ("calendar.email, calendar.time, calendar.email, calendar.time")."""
    booking = Tool(
        name="calendar",
        description="book meetings",
        parameters={"type": "object", "required": ["email", "time"], "properties": {"email": {}, "time": {}}},
        created_at=NOW,
        updated_at=NOW,
    )
    assert [(p.field, p.problem) for p in argument_problems(booking, {})] == [("email", "missing"), ("time", "missing")]
    assert [p.field for p in argument_problems(booking, {"email": "a@b.c"})] == ["time"]


async def test_two_close_tools_are_told_apart_by_the_requests_verb() -> None:
    """Issue 47: "Send a reminder email for our call" matched the calendar 0.69 and email 0.65 and
    asked the user to choose; the email tool is the one whose texts send. A verb both tools use, or
    neither, still asks."""
    embedder = CountingEmbedder()
    same = _tool("notes", "keep reminders for meetings")
    chooser = ToolChooser(0.0, 1.0)  # every pair is "close": only the verb can decide
    query = "send a reminder for our call"
    told = await chooser.choose(embedder, embedder.embed_sync([query]), [same, EMAIL], query_text=query)
    assert told.chosen == "email" and "verb" in told.reason
    both = _tool("sms", "send texts", "send me a text")
    asked = await chooser.choose(embedder, embedder.embed_sync([query]), [both, EMAIL], query_text=query)
    assert asked.chosen is None and asked.close is not None
    none = await chooser.choose(embedder, embedder.embed_sync(["a reminder"]), [same, EMAIL], query_text="a reminder")
    assert none.chosen is None


@pytest.mark.parametrize(
    ("query", "chosen", "owner"),
    [
        ("send a reminder email for our call", "calendar", "email"),  # nouns of a meeting; it sends
        ("please change the contact email on our account", "email", "crm"),  # the noun "email"; it changes
        ("can you update my phone number", "crm", None),  # the chosen tool's verb: kept
        ("my new email is ann@acme.io", "email", None),  # no opening verb: kept
        ("cancel my subscription", "crm", None),  # no tool's texts cancel: kept
    ],
)
def test_the_opening_verb_names_the_tool_that_does_it(query: str, chosen: str, owner: str | None) -> None:
    """Issue 47: the tool choice followed the nouns ("Note that we prefer calls in the afternoon" →
    calendar, "Change the contact email on our account" → email); the verb a request opens with
    says what is to be done."""
    scores = {"calendar": 0.7, "crm": 0.5, "email": 0.6}
    assert verb_owner(query, chosen, [CALENDAR, CRM, EMAIL], scores, 0.4) == owner


def test_the_verbs_owner_must_fit_the_request_at_all() -> None:
    """A tool that uses the verb but scores below the floor is no evidence: the choice stands."""
    scores = {"calendar": 0.7, "crm": 0.2, "email": 0.6}
    assert verb_owner("change the date of our demo call", "calendar", [CALENDAR, CRM, EMAIL], scores, 0.4) is None
    assert verb_owner("change the date of our demo call", "calendar", [CALENDAR, CRM, EMAIL], scores, 0.1) == "crm"


async def test_the_chooser_follows_the_opening_verb_over_the_nouns() -> None:
    embedder = CountingEmbedder()
    meetings = _tool("meetings", "book meetings", "book a reminder for our demo call")
    query = "send a reminder for our demo call"
    vector = embedder.embed_sync([query])
    choice = await ToolChooser(0.0, 0.0).choose(embedder, vector, [meetings, EMAIL], query_text=query)
    assert list(choice.scores)[0] == "meetings"  # the nouns
    assert choice.chosen == "email" and "verb" in choice.reason

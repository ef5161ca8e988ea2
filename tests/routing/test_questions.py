"""Questions written for people (issue 47, item 7): in the tools' own words, grammatical."""

from __future__ import annotations

from datetime import UTC, datetime

from phronesis.routing import questions
from phronesis.routing.tools import ArgumentProblem, Tool

NOW = datetime(2026, 11, 29, tzinfo=UTC)
CONTRACT = Tool(
    name="contract",
    description="Start or change a subscription: plan and number of seats",
    parameters={"type": "object", "properties": {"seats": {"type": "integer", "description": "How many seats"},
                                                 "plan": {"type": "string", "description": "The plan"}}},
    created_at=NOW,
    updated_at=NOW,
)  # fmt: skip


def _missing(*fields: str) -> list[ArgumentProblem]:
    return [ArgumentProblem(tool="contract", field=f, problem="missing") for f in fields]


def test_a_description_that_is_a_question_is_asked_as_one() -> None:
    """A fresh-clone trial read "…I need how many seats."."""
    tools = {"contract": CONTRACT}
    assert questions.for_arguments(_missing("seats"), tools) == (
        "To start or change a subscription I need to know how many seats."
    )
    assert questions.for_arguments(_missing("plan"), tools) == "To start or change a subscription I need the plan."


def test_what_the_agent_can_do_is_one_list_however_it_is_asked() -> None:
    actions = ["book meetings", "update the lead record", "send emails"]
    assert "book meetings, update the lead record and send emails" in questions.which_one([], actions)
    assert "book meetings, update the lead record and send emails" in questions.what_i_can_do(actions)

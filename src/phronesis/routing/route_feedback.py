"""Was a routing decision right? Feedback on it, and the exemplars it teaches.

Seed 002's roadmap: "Track decision outcomes … Learn from escalations". A routing decision is
rated on its own record, in one transaction: ``outcome`` becomes ``correct`` or
``incorrect`` and ``attributes.route_feedback`` says what it should have been; a later rating
replaces an earlier one (the last click wins, as everywhere in phronesis). Confirmed
decisions then become exemplars for the next fit (``phronesis routing fit --from-feedback``):
the query labelled with the decision taken when it was right, or with the decision (and tool)
it should have been when it was wrong; a wrong decision without a correction teaches nothing.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, StrictBool, StringConstraints, model_validator
from sqlalchemy import ColumnElement

from phronesis.audit import ratings
from phronesis.audit.repository import DecisionRecordRepository
from phronesis.clock import Clock
from phronesis.exceptions import InvalidInputError, NotFoundError
from phronesis.feedback.rates import refuse_another
from phronesis.routing.decisions import Decision
from phronesis.routing.exemplars import Exemplar
from phronesis.routing.tools import ToolRepository
from phronesis.schema import Schema

__all__ = ["RouteFeedback", "RouteFeedbackIn", "RouteFeedbackStore"]


class RouteFeedbackIn(Schema):
    model_config = ConfigDict(extra="forbid")

    decision_id: Annotated[str, StringConstraints(min_length=1, max_length=64)]
    """The routing decision rated (``RouteResult.decision_id``); it must be a routing decision of
    this session (else 404) that was routed (a turn a human owned cannot be rated)."""
    correct: StrictBool
    """Whether the decision was right (a JSON boolean). A later rating of the same decision
    replaces this one."""
    expected_decision: Decision | None = None
    """What it should have been (only when not correct)."""
    expected_tool: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = None
    """The tool it should have used (with ``expected_decision`` USE_TOOL)."""
    note: Annotated[str, StringConstraints(max_length=2000)] | None = None
    """Free text kept with the rating (at most 2000 characters)."""

    @model_validator(mode="after")
    def _consistent(self) -> RouteFeedbackIn:
        if self.correct and (self.expected_decision is not None or self.expected_tool is not None):
            raise ValueError("a correct decision has no expected_decision or expected_tool")
        if self.expected_tool is not None and self.expected_decision not in (None, Decision.USE_TOOL):
            raise ValueError("expected_tool goes with expected_decision USE_TOOL")
        return self


class RouteFeedback(Schema):
    decision_id: str
    """The rated routing decision."""
    session_id: str
    """The session the decision belongs to."""
    decided: str | None
    """What was decided, as the record says: RETRIEVE, REASON_ONLY, USE_TOOL, CLARIFY or ESCALATE."""
    outcome: str
    """The decision record's outcome now: ``correct`` or ``incorrect``."""
    route_feedback: dict[str, Any]
    """The rating as stored on the decision record (``attributes.route_feedback``): ``correct``,
    ``expected_decision``, ``expected_tool``, ``note`` and ``at`` (when it was rated, ISO 8601 UTC)."""


KEY = "route_feedback"
"""Where a rating lives on the decision's record (``attributes``)."""


def should_have_been() -> ColumnElement[str]:
    """A rated routing record's true decision (``audit.ratings.should_have_been``)."""
    return ratings.should_have_been(KEY)


class RouteFeedbackStore:
    def __init__(self, decisions: DecisionRecordRepository, clock: Clock, tools: ToolRepository) -> None:
        self._decisions = decisions
        self._clock = clock
        self._tools = tools

    async def _registered(self, tenant: str) -> set[str]:
        return {tool.name for tool in await self._tools.list(tenant)}

    async def rate(
        self, tenant: str, decision_id: str, rating: RouteFeedbackIn, *, session_id: str | None = None
    ) -> RouteFeedback:
        """``feedback.rates.Rates``: record the rating on the decision's record; 404 unless it is a
        routing decision. Through a session's route (``session_id``), a decision of another session
        is refused naming ``decision_id`` and the session it is of."""
        body = rating
        refuse_another(body.decision_id, decision_id, field="decision_id")
        record = await self._decisions.get(tenant, decision_id)
        if record.kind != "routing":
            raise NotFoundError("routing decision", decision_id)
        if session_id is not None and record.subject_id != session_id:
            raise InvalidInputError(
                "decision_id", f"decision {decision_id!r} is of session {record.subject_id!r}, not of {session_id!r}"
            )
        if record.action is None:
            raise InvalidInputError("decision_id", "that turn was not routed (a human owned the session)")
        if body.expected_tool is not None and body.expected_tool not in (registered := await self._registered(tenant)):
            # accepted, "teleporter" would make `fit --from-feedback` route chatter to it
            known = ", ".join(sorted(registered)) or "none"
            raise InvalidInputError(
                "expected_tool", f"no tool {body.expected_tool!r} is registered (registered: {known})"
            )
        expected = body.expected_decision.value if body.expected_decision else None
        if not body.correct and expected == record.action and record.action != "USE_TOOL":
            # "wrong, it should have been what it was" teaches nothing and counted as right in the
            # confusion matrix and the replay (a USE_TOOL may still have picked the wrong tool)
            raise InvalidInputError("expected_decision", f"{expected} is what it decided: rate it correct instead")
        feedback = {
            "correct": body.correct,
            "expected_decision": body.expected_decision.value if body.expected_decision else None,
            "expected_tool": body.expected_tool,
            "note": body.note,
            "at": self._clock.now().isoformat(),
        }
        await self._decisions.rate(tenant, record.id, KEY, feedback, correct=body.correct)
        outcome = "correct" if body.correct else "incorrect"
        return RouteFeedback(
            decision_id=record.id,
            session_id=record.subject_id or "",  # a routing record's subject is its session
            decided=record.action,
            outcome=outcome,
            route_feedback=feedback,
        )

    async def exemplars(self, tenant: str, *, limit: int = 100_000) -> list[Exemplar]:
        """What rated decisions teach, oldest first (see the module docstring); a rating naming a tool
        no longer registered teaches nothing (the router would name a tool that cannot be called)."""
        taught: list[Exemplar] = []
        registered = await self._registered(tenant)
        for rated in await self._decisions.rated(tenant, "routing", KEY, limit=limit):
            text = str(rated.inputs.get("query", "")).strip()
            if not text:
                continue
            if rated.correct and rated.action:
                tools = rated.attributes.get("required_tools") or []
                taught.append(_exemplar(text, rated.action, tools[0] if rated.action == "USE_TOOL" and tools else None))
            elif not rated.correct and rated.feedback.get("expected_decision"):
                taught.append(_exemplar(text, rated.feedback["expected_decision"], rated.feedback.get("expected_tool")))
        return [
            e for e in taught if e.decision is not Decision.USE_TOOL or e.label in registered or e.label == "USE_TOOL"
        ]


def _exemplar(text: str, decision: str, tool: str | None) -> Exemplar:
    """Labelled with the tool's name when there is one, so the router names the tool itself."""
    return Exemplar(text=text[:2000], label=tool or decision, decision=Decision(decision))

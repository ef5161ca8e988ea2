"""What happens after a tool ran: seed 002's retry and failure rules, and the session's success rate.

The agent runs the tool and reports the outcome; phronesis says what next. Retries (at
most three, ``routing.max_tool_retries``) only for tools that allow them; once retries
are exhausted a critical tool escalates (``tool_failure``) and any other is skipped
("proceed_without_tool"). Every outcome moves the session's tool success rate, which the
next turn's composite confidence reads.
"""

from __future__ import annotations

from typing import Literal

from sqlalchemy import insert

from phronesis.audit.models import NewDecisionRecord
from phronesis.ids import new_id
from phronesis.routing.decisions import EscalationReason
from phronesis.routing.models import ToolOutcomeIn, ToolOutcomeResult
from phronesis.routing.service import RoutingParts
from phronesis.routing.settings import RoutingSettings
from phronesis.storage.tables import routing_tool_outcomes

__all__ = ["ToolOutcomes"]

NextAction = Literal["proceed", "retry", "proceed_without_tool", "escalate", "human_owned"]


class ToolOutcomes:
    def __init__(self, settings: RoutingSettings, parts: RoutingParts) -> None:
        self.settings = settings
        self.parts = parts

    async def report(self, tenant: str, session_id: str, outcome: ToolOutcomeIn) -> ToolOutcomeResult:
        tool = await self.parts.tools.get(tenant, outcome.tool)
        s = self.settings
        decision_id = new_id()
        async with self.parts.database.transaction() as conn:
            session = await self.parts.sessions.get_for_update(conn, tenant, session_id, turns=0)
            await self.parts.sessions.count_tool_call(conn, tenant, session_id, success=outcome.success)
            retries_used = outcome.attempt - 1
            retries_left = max(0, s.max_tool_retries - retries_used) if tool.retry_allowed else 0
            action: NextAction
            reason: str | None = None
            message: str | None = None
            mode = session.mode
            if outcome.success:
                action = "proceed"
            elif retries_left > 0:
                action = "retry"
            elif tool.critical:
                action, reason, message = "escalate", EscalationReason.TOOL_FAILURE.value, s.error_message
                if session.mode == "auto":
                    await self.parts.sessions.set_mode(conn, tenant, session_id, "human", reason=reason)
                mode = "human"
            else:
                action = "proceed_without_tool"
            if session.mode == "human" and action != "escalate":
                action = "human_owned"  # the human decides what to do with a late tool result
            await conn.execute(
                insert(routing_tool_outcomes).values(
                    tenant=tenant,
                    session_id=session_id,
                    tool=tool.name,
                    success=outcome.success,
                    attempt=outcome.attempt,
                    error=outcome.error,
                    decision_id=outcome.decision_id,
                    next_action=action,
                    created_at=self.parts.clock.now(),
                )
            )
            counted = session.model_copy(
                update={
                    "tool_calls": session.tool_calls + 1,
                    "tool_failures": session.tool_failures + (0 if outcome.success else 1),
                }
            )
            rate = counted.tool_success_rate  # what the SQL update just made of the locked row
            await self.parts.decisions.write(
                NewDecisionRecord(
                    id=decision_id,
                    tenant=tenant,
                    kind="routing",
                    subject_id=session_id,
                    strategy="tool_outcome",
                    path="tool_outcome",
                    action=action,
                    confidence=None,
                    inputs=outcome.model_dump(),
                    llm_calls=0,  # a tool's report is decided by rule: counted as decided without the LLM
                    reason=reason,
                    attributes={
                        "critical": tool.critical,
                        "retry_allowed": tool.retry_allowed,
                        "retries_left": retries_left,
                        "tool_success_rate": rate,
                    },
                ),
                into=conn,
            )
        return ToolOutcomeResult(
            decision_id=decision_id,
            next_action=action,
            retries_left=retries_left if action == "retry" else 0,
            tool_success_rate=rate,
            escalation_reason=reason,
            message=message,
            session_mode=mode,
        )

"""Sleep-cycle re-evaluation (seed 000 F-25).

Recent LLM-path events are decided again with *no* candidates, so the LLM cannot be
anchored by them; its fresh answer is then compared with the heuristics that match the
event now. That convergence is the cleanest evidence the executive gets that a heuristic
says what the LLM would say. It is recorded (a decision record of strategy
``sleep_cycle`` per event, pointing at the original), not applied: whether to let it move
confidence is a policy decision left to whoever reads the report.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from typing import Any

from phronesis.audit.models import DecisionRecord, NewDecisionRecord
from phronesis.executive.convergence import detect_convergence
from phronesis.executive.service import ExecutiveService
from phronesis.executive.types import DecisionContext, DecisionPath
from phronesis.ids import new_id
from phronesis.schema import Schema

__all__ = ["ReevaluationSummary", "reevaluate"]

SLEEP_CYCLE = "sleep_cycle"


class ReevaluationSummary(Schema):
    events: int = 0
    decided: int = 0
    converged: int = 0
    failed: int = 0


async def reevaluate(
    service: ExecutiveService,
    tenant: str,
    *,
    since: datetime | None = None,
    limit: int = 1000,
    batch_size: int = 16,
    progress: Callable[[int], None] | None = None,
    on_total: Callable[[int], None] | None = None,
) -> ReevaluationSummary:
    llm = service.require_llm("re-evaluation")
    strategy = service.strategy_for("always_llm")
    records = await service.parts.decisions.query(
        tenant, kind="executive", path="llm", since=since, limit=limit, exclude_strategy=SLEEP_CYCLE
    )
    summary = ReevaluationSummary(events=len(records))
    if on_total is not None:
        on_total(len(records))

    async def one(record: DecisionRecord) -> None:
        inputs: dict[str, Any] = record.inputs
        context = DecisionContext(
            event_id=record.subject_id or record.id,
            event_text=str(inputs.get("event_text", "")) or "(empty)",
            event_source=str(inputs.get("event_source", "")),
            salience=inputs.get("salience", {}),
            candidates=[],
            immediate=True,
            goals=list(inputs.get("goals", [])),
            personality_biases=inputs.get("personality_biases", {}),
        )
        result = await strategy.decide(context, llm)
        if result.path is not DecisionPath.LLM:
            summary.failed += 1
            return
        summary.decided += 1
        matches, _ = await service.candidates(tenant, context.event_text, context.event_source)
        convergence = await detect_convergence(
            service.parts.embedder, result.response_text, [(m.heuristic_id, m.suggested_action) for m in matches]
        )
        attributes: dict[str, Any] = {**result.metadata, "reevaluated_from": record.id}
        if convergence is not None:
            attributes["convergence"] = convergence.model_dump()
            if convergence.similarity >= service.settings.endorsement_threshold:
                summary.converged += 1
        await service.parts.decisions.write(
            NewDecisionRecord(
                id=new_id(),
                tenant=tenant,
                kind="reevaluation",  # not an A/B arm: the report counts only real-time decisions
                subject_id=context.event_id,
                strategy=SLEEP_CYCLE,
                path=result.path.value,
                action=result.response_text,
                confidence=result.predicted_success,
                inputs={"event_text": context.event_text, "event_source": context.event_source},
                prompt=result.prompt_text,
                raw_llm_output=result.raw_llm_output,
                model=result.model,
                prompt_tokens=result.prompt_tokens or None,
                completion_tokens=result.completion_tokens or None,
                llm_calls=result.llm_calls,
                attributes=attributes,
            )
        )

    for start in range(0, len(records), batch_size):
        batch = records[start : start + batch_size]
        await asyncio.gather(*(one(record) for record in batch))
        if progress is not None:
            progress(len(batch))
    return summary

"""The shape of every decision, as code (ARCHITECTURE.md, "The shape of every decision"):

    input → context → cheap stage → expensive stage → check → record → effects

A decision point names its stages (``Stages``) and ``decide`` runs them in that order, the same way
for every point:

- the **cheap stage** never calls the LLM; it decides when it can (a hard rule, a pre-filter, a
  confident heuristic) and says None when it cannot;
- the **expensive stage** (the LLM) runs only then; when it fails, or its output does not validate
  (LLM output is untrusted), or there is no LLM, the point's documented **fallback** decides
  instead, and the record says why;
- the **check** validates, caps and clamps whatever was decided (it may read: a recovery rule,
  an embedding the effects keep);
- the **effects** and the **record** are written in one transaction of the point's choosing (a
  connection, a point transaction, a write buffer), the record through the one record writer
  (``DecisionRecordRepository.write``): both, or neither. The effects come first and answer the
  verdict as it took effect, so the record says what happened.

``docs/internals/adding-a-decision-point.md`` builds a new point on it, step by step."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from pydantic import ValidationError

from phronesis.audit.models import DecisionKind, NewDecisionRecord
from phronesis.audit.repository import DecisionRecordRepository, RecordSink
from phronesis.exceptions import LLMError

__all__ = [
    "Decided",
    "DecidedEach",
    "EachStages",
    "NoExpensiveStage",
    "Stages",
    "Verdict",
    "commit",
    "decide",
    "decide_each",
    "verdicts",
]

GivenT = TypeVar("GivenT", contravariant=True)
ContextT = TypeVar("ContextT")
ItemT = TypeVar("ItemT")
OutcomeT = TypeVar("OutcomeT")
WritesT = TypeVar("WritesT", bound=RecordSink)


@dataclass(frozen=True, slots=True)
class Verdict(Generic[OutcomeT]):
    """What a stage decided, which way (the record's ``path``: the point's own names, e.g.
    ``heuristic``, ``llm``, ``fallback``) and why, in words a user reads on the record."""

    outcome: OutcomeT
    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class Decided(Generic[ContextT, OutcomeT]):
    """A decision as ``decide`` ends it: the record written (its id is quoted back with feedback, its
    explanation said to the caller), the verdict, and the context it was decided in (what the point's
    answer to its caller is built from)."""

    record: NewDecisionRecord
    verdict: Verdict[OutcomeT]
    context: ContextT

    @property
    def decision_id(self) -> str:
        return self.record.id


class NoExpensiveStage(Exception):
    """The expensive stage cannot run (no LLM is configured): the fallback decides, saying ``reason``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Stages(Protocol[GivenT, ContextT, OutcomeT, WritesT]):
    """A decision point's stages, in the order ``decide`` runs them. ``WritesT`` is what the record
    and the effects are written on: the transaction ``transaction`` opens."""

    @property
    def kind(self) -> DecisionKind:
        """The records' ``kind``: which decision point decided."""
        ...

    async def context(self, tenant: str, given: GivenT) -> ContextT:
        """What the decision needs to know besides its input (memory, history, trust, the tenant's
        tuned settings), read before anything is decided."""
        ...

    async def cheap(self, context: ContextT) -> Verdict[OutcomeT] | None:
        """A decision without the LLM, or None: the expensive stage is needed."""
        ...

    async def expensive(self, context: ContextT) -> Verdict[OutcomeT]:
        """The LLM's decision, its output parsed into a pydantic model. Raises ``NoExpensiveStage``
        without an LLM; an ``LLMError`` or a ``ValidationError`` is the fallback's to answer."""
        ...

    def fallback(self, context: ContextT, why: str) -> Verdict[OutcomeT]:
        """The seed's documented fallback when the expensive stage could not decide (``why``)."""
        ...

    async def check(self, context: ContextT, verdict: Verdict[OutcomeT]) -> Verdict[OutcomeT]:
        """Validate, cap and clamp: the verdict as it will be recorded and acted on. It writes nothing."""
        ...

    def transaction(self) -> AbstractAsyncContextManager[WritesT]:
        """The transaction the effects and the record are written in: committed together or not at all."""
        ...

    async def effects(self, writes: WritesT, context: ContextT, verdict: Verdict[OutcomeT]) -> Verdict[OutcomeT]:
        """What the decision changes (a stored run, a queued message, a fired heuristic), written on
        ``writes``, the record's transaction; and the verdict as it took effect (what the transaction
        found may overrule it: a routing turn a person took over meanwhile is superseded)."""
        ...

    def record(self, context: ContextT, verdict: Verdict[OutcomeT]) -> NewDecisionRecord:
        """The decision record: path, action, confidence, inputs, prompt, raw output, reason. Its
        ``id`` is the decision's (the context's or the verdict's, the one the effects wrote), quoted
        back with feedback."""
        ...


async def decide(
    stages: Stages[GivenT, ContextT, OutcomeT, WritesT],
    tenant: str,
    given: GivenT,
    *,
    records: DecisionRecordRepository,
) -> Decided[ContextT, OutcomeT]:
    """Run ``stages`` on ``given``: context, cheap, expensive only when the cheap stage cannot decide
    (its failure is the fallback's, with the reason), check, then the effects and the record in one
    transaction (the effects first: they may find the verdict overruled). An error of the context, the
    check or a write is raised, and nothing is written."""
    context = await stages.context(tenant, given)
    verdict = await _cheap_else_expensive(
        lambda: stages.cheap(context), lambda: stages.expensive(context), lambda why: stages.fallback(context, why)
    )
    verdict = await stages.check(context, verdict)
    async with stages.transaction() as writes:
        verdict = await stages.effects(writes, context, verdict)
        record = stages.record(context, verdict)
        await records.write(record, into=writes)
    return Decided(record, verdict, context)


async def _cheap_else_expensive(
    cheap: Callable[[], Awaitable[Verdict[OutcomeT] | None]],
    expensive: Callable[[], Awaitable[Verdict[OutcomeT]]],
    fallback: Callable[[str], Verdict[OutcomeT]],
) -> Verdict[OutcomeT]:
    """The cheap stage; the expensive one only when it cannot decide; the fallback, with the reason,
    when that one cannot either (no LLM, an LLM error, an answer that does not validate)."""
    verdict = await cheap()
    if verdict is not None:
        return verdict
    try:
        return await expensive()
    except NoExpensiveStage as missing:
        return fallback(missing.reason)
    except (LLMError, ValidationError) as failed:  # LLM output is untrusted: the fallback answers
        return fallback(f"{type(failed).__name__}: {failed}"[:200])


class EachStages(Protocol[GivenT, ContextT, ItemT, OutcomeT, WritesT]):
    """The stages of a point that decides a batch in one go (admission's runs, a proactive tick's
    users): one context for the batch, each item decided in order by the same stages as ``Stages``
    (a later item sees what the check made of the earlier ones), then one transaction for every
    item's effects and records: the whole batch, or none of it."""

    @property
    def kind(self) -> DecisionKind: ...

    async def context(self, tenant: str, given: GivenT) -> ContextT:
        """What the whole batch needs, read once."""
        ...

    def items(self, context: ContextT) -> Sequence[ItemT]:
        """The batch's items, in the order they are decided."""
        ...

    async def cheap(self, context: ContextT, item: ItemT) -> Verdict[OutcomeT] | None: ...

    async def expensive(self, context: ContextT, item: ItemT) -> Verdict[OutcomeT]: ...

    def fallback(self, context: ContextT, item: ItemT, why: str) -> Verdict[OutcomeT]: ...

    async def check(self, context: ContextT, item: ItemT, verdict: Verdict[OutcomeT]) -> Verdict[OutcomeT]: ...

    def transaction(self) -> AbstractAsyncContextManager[WritesT]: ...

    async def effects(
        self, writes: WritesT, context: ContextT, decided: Sequence[tuple[ItemT, Verdict[OutcomeT]]]
    ) -> Sequence[Verdict[OutcomeT]]:
        """Every item's effects, in order, and each verdict as it took effect."""
        ...

    def record(self, context: ContextT, item: ItemT, verdict: Verdict[OutcomeT]) -> NewDecisionRecord | None:
        """The item's decision record; None when nothing was decided about it here (another process
        decided it first, or it failed and its error is its answer)."""
        ...


@dataclass(frozen=True, slots=True)
class DecidedEach(Generic[ContextT, ItemT, OutcomeT]):
    """A batch as ``decide_each`` ends it: each item with its record's id (None: it has none, see
    ``EachStages.record``) and its verdict, in order."""

    decisions: Sequence[tuple[str | None, ItemT, Verdict[OutcomeT]]]
    context: ContextT


async def decide_each(
    stages: EachStages[GivenT, ContextT, ItemT, OutcomeT, WritesT],
    tenant: str,
    given: GivenT,
    *,
    records: DecisionRecordRepository,
    at_once: int = 1,
) -> DecidedEach[ContextT, ItemT, OutcomeT]:
    """``decide`` for a batch: the context once, each item through cheap, expensive and check
    (``verdicts``), then every item's effects and records in one transaction (``commit``)."""
    context = await stages.context(tenant, given)
    decided = await verdicts(stages, context, at_once=at_once)
    return DecidedEach(await commit(stages, context, decided, records=records), context)


async def verdicts(
    stages: EachStages[GivenT, ContextT, ItemT, OutcomeT, WritesT], context: ContextT, *, at_once: int = 1
) -> list[tuple[ItemT, Verdict[OutcomeT]]]:
    """Each item's verdict: cheap, expensive when needed (the fallback when it cannot), check. In
    order (``at_once`` 1: a later item sees what the check made of the earlier ones), or up to
    ``at_once`` items at a time for a point whose items are independent (a tick's users, each
    perhaps an LLM call)."""

    async def one(item: ItemT) -> tuple[ItemT, Verdict[OutcomeT]]:
        verdict = await _cheap_else_expensive(
            lambda: stages.cheap(context, item),
            lambda: stages.expensive(context, item),
            lambda why: stages.fallback(context, item, why),
        )
        return item, await stages.check(context, item, verdict)

    items = stages.items(context)
    if at_once <= 1:
        return [await one(item) for item in items]
    limit = asyncio.Semaphore(at_once)

    async def limited(item: ItemT) -> tuple[ItemT, Verdict[OutcomeT]]:
        async with limit:
            return await one(item)

    return list(await asyncio.gather(*(limited(item) for item in items)))


async def commit(
    stages: EachStages[GivenT, ContextT, ItemT, OutcomeT, WritesT],
    context: ContextT,
    decided: Sequence[tuple[ItemT, Verdict[OutcomeT]]],
    *,
    records: DecisionRecordRepository,
) -> list[tuple[str | None, ItemT, Verdict[OutcomeT]]]:
    """The items' effects, then their records, in one transaction: all of them or none. A point may
    commit a batch again in parts when it fails (one bad user must not cost a tick its cycles)."""
    async with stages.transaction() as writes:
        taken = await stages.effects(writes, context, decided)
        written = [stages.record(context, item, verdict) for (item, _), verdict in zip(decided, taken, strict=True)]
        await records.write(*(record for record in written if record is not None), into=writes)
    return [
        (None if record is None else record.id, item, verdict)
        for record, (item, _), verdict in zip(written, decided, taken, strict=True)
    ]

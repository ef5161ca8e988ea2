"""The decide half of an admission: pre-filter and judge every run of a batch, writing nothing.

A batch is planned in order (``screen``, then ``by_llm`` or ``by_rules``, then ``settle``: the
stages ``AdmissionService`` runs through ``phronesis.decision.decide_each``) against a view of
memory that includes the runs planned before it in the same batch (pending adds, pending
supersessions), so a batch deduplicates within itself. Nothing here holds a transaction: the LLM judge may take
seconds, and the executor re-checks each plan's preconditions when it writes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from sqlalchemy.ext.asyncio import AsyncConnection

from phronesis.admission.judgement import Candidate, Incoming, Verdict, same_structure
from phronesis.admission.llm_judge import JudgeFailure, LLMJudge
from phronesis.admission.models import RunIn
from phronesis.admission.pair_judge import PairJudge
from phronesis.admission.pending_runs import PendingRuns
from phronesis.admission.prefilter import Screening, prefilter
from phronesis.admission.rule_judge import RuleJudge, Step
from phronesis.admission.run_repository import RunRepository, StoredRun
from phronesis.admission.run_vectors import RunVectors
from phronesis.admission.settings import AdmissionSettings
from phronesis.admission.summaries import Summary
from phronesis.admission.task_values import kinship
from phronesis.decision import NoExpensiveStage
from phronesis.embeddings.types import Vectors
from phronesis.exceptions import ConflictError, InvalidInputError

__all__ = ["Plan", "Planner", "Prepared", "Screened", "View"]

OVERSAMPLE = 4
"""In a batch, fetch this many times top_k from the index: a run planned earlier in the batch
may retire (REPLACE) a later run's hits, and those are skipped."""

MARGIN = 2
"""A lone run fetches top_k + this many: the index is synced just before the search, so a hit
is inactive only when another writer superseded it in between (rare, and only a candidate
fewer). Each extra hit is one more stored row read (seed 003 shows the judge top 3)."""


@dataclass(frozen=True, slots=True)
class Prepared:
    """A run ready to be judged: its id, task identity, content hash, summary and embedding."""

    position: int
    data: RunIn
    run_id: str
    task_id: str
    content_hash: str
    summary: Summary
    vector: Vectors | None
    """None for a run found to duplicate stored content before it was embedded: it needs no search."""
    field_prefix: str = ""
    """Where this run sits in the request, for error messages: "" alone, "runs.3." in a batch
    (the path pydantic gives)."""

    @property
    def scope(self) -> tuple[str, str]:
        return (self.data.agent_id, self.data.user_id)

    @property
    def incoming(self) -> Incoming:
        """The run as the pre-filter and the judges see it."""
        return Incoming(
            run_id=self.run_id,
            task=self.data.task,
            task_id=self.task_id,
            summary=self.summary.text,
            outcome=self.data.outcome,
            references=frozenset(self.data.references),
            artifacts=frozenset(self.data.artifacts),
        )


@dataclass(frozen=True, slots=True)
class Plan:
    prepared: Prepared
    verdict: Verdict
    nearest: list[Candidate]
    duplicate_threshold: float
    fail_safe: str | None = None
    """Why the fail-safe stood in for the LLM's verdict, when it did."""
    resent: bool = False
    """The same run (id and content) sent again: an idempotent NOT that changes nothing."""
    low_similarity: float | None = None
    """The pre-filter's low threshold this run was screened at (the tenant's, ``tenant_settings``)."""
    judge: str = "rules"
    """The judge a run past the pre-filter goes to ("llm" or "rules"): what a replay of the low
    threshold needs to know about a run the pre-filter decided (``replay.admission``)."""
    pair_judge: bool = False
    """Whether the tenant's pair judge decided which candidates are duplicates."""
    by_threshold: tuple[Step, ...] | None = None
    """The rule judge's verdict at every duplicate threshold, where the rule judge decided
    (``RuleJudge.by_threshold``): what a replay of the duplicate threshold reads."""
    likely_duplicate: bool | None = None
    likely_duplicate_from: float | None = None
    """Where the LLM judge decided: the pre-filter's "likely duplicate" hint it was given, and the
    highest duplicate threshold that would set it (None: no threshold changes it)."""

    @property
    def similarity(self) -> float | None:
        """The best similar run's similarity; 1.0 for the same content stored already."""
        if self.verdict.rule in ("exact_duplicate", "resent"):
            return 1.0
        return self.nearest[0].similarity if self.nearest else None

    @property
    def stores(self) -> bool:
        return self.verdict.decision != "NOT"

    @property
    def counts_as_use(self) -> bool:
        """A NOT counts one more use of its target only when it repeats it: the same content, or a
        run at least as good. A failed run decided NOT against a success is not a use of the
        success (counting it would inflate the group's ``usage_count``)."""
        if self.verdict.decision != "NOT" or self.verdict.target is None or self.resent:
            return False
        target = next((c for c in self.nearest if c.run_id == self.verdict.target), None)
        return target is None or self.prepared.incoming.rank >= target.rank  # None: the same content


@dataclass(frozen=True, slots=True)
class Screened:
    """A run the pre-filter could not decide: the judge's, with the candidates it sees."""

    screening: Screening
    nearest: list[Candidate]
    duplicate_threshold: float


@dataclass
class View:
    """Memory as the batch sees it: stored runs plus what earlier runs in the batch planned."""

    hits: dict[int, list[tuple[str, float]]]
    stored: dict[str, StoredRun]
    hashes: dict[tuple[str, str, str], str]
    pending: PendingRuns = field(default_factory=PendingRuns)
    retired: set[str] = field(default_factory=set)


def _candidate(stored: StoredRun, similarity: float, task_id: str, task: str) -> Candidate:
    return Candidate(
        run_id=stored.id,
        similarity=similarity,
        task_id=stored.task_id,
        summary=stored.summary,
        outcome=stored.outcome,  # type: ignore[arg-type]  # the table's check constraint
        references=stored.references,
        artifacts=stored.artifacts,
        same_task=stored.task_id == task_id,
        described=stored.described,
        task=stored.task,
        **kinship(stored.task, task),
    )


def _run_ids(hashes: Mapping[tuple[str, str, str], tuple[str, str]]) -> dict[tuple[str, str, str], str]:
    return {key: run_id for key, (run_id, _) in hashes.items()}


class Planner:
    def __init__(
        self,
        settings: AdmissionSettings,
        runs: RunRepository,
        index: RunVectors,
        *,
        llm_judge: LLMJudge | None,
    ) -> None:
        self._settings = settings
        self._runs = runs
        self._index = index
        self._llm_judge = llm_judge
        self._rule_judge = RuleJudge()

    async def load(
        self,
        tenant: str,
        batch: Sequence[Prepared],
        *,
        hashes: Mapping[tuple[str, str, str], tuple[str, str]] | None = None,
        low_similarity: float | None = None,
    ) -> View:
        """Search the index and read what the batch needs, all on one connection (each read is a
        round trip: this is most of an admission's latency), and none at all when nothing needs
        reading (a re-sent run). ``hashes``: the exact-duplicate lookup already made for this
        batch, so it is not read twice. ``low_similarity``: the tenant's low threshold (None: the
        configured one)."""
        s = self._settings
        low = s.low_similarity if low_similarity is None else low_similarity
        # a run known to duplicate stored content was not embedded (see AdmissionService): no search
        searching = any(p.vector is not None for p in batch)
        explicit = [p.data.id for p in batch if p.data.id] + [p.data.replaces for p in batch if p.data.replaces]
        if not searching and not explicit and hashes is not None:
            return View(hits={p.position: [] for p in batch}, stored={}, hashes=_run_ids(hashes))
        async with self._runs.reading() as connection:
            if searching:
                await self._index.sync(connection)  # another process's runs are found too
            hits: dict[int, list[tuple[str, float]]] = {p.position: [] for p in batch}
            by_scope: dict[tuple[str, str], list[Prepared]] = {}
            kin: set[str] = set()
            for p in batch:
                if p.vector is not None:
                    by_scope.setdefault(p.scope, []).append(p)
            for (agent_id, user_id), group in by_scope.items():  # a scope's runs in one index pass
                vectors = np.stack([p.vector for p in group if p.vector is not None])
                breadth = s.top_k * OVERSAMPLE if len(group) > 1 else s.top_k + MARGIN
                found = await self._index.find_many(tenant, agent_id, user_id, vectors, breadth)
                hits.update(zip((p.position for p in group), found, strict=True))
                kin |= await self._add_same_task(tenant, (agent_id, user_id), group, hits, connection)
            wanted = [key for found in hits.values() for key, _ in found] + explicit
            # the judge sees these: their references and artifacts are read (``prefilter``)
            judged = [key for found in hits.values() for key, score in found if score >= low or key in kin]
            stored = await self._runs.stored(tenant, wanted, with_values=judged, connection=connection)
            if hashes is None:
                keys = [(*p.scope, p.content_hash) for p in batch]
                hashes = await self._runs.by_content(tenant, keys, connection=connection)
        view = View(hits=hits, stored=stored, hashes=_run_ids(hashes))
        for p in batch:
            self._check_explicit(p, view)
        return view

    async def _add_same_task(
        self,
        tenant: str,
        scope: tuple[str, str],
        group: Sequence[Prepared],
        hits: dict[int, list[tuple[str, float]]],
        connection: AsyncConnection | None,
    ) -> set[str]:
        """Add each run's stored runs of the same task to its hits, with their similarity.

        Templated tasks are close to each other: a re-sent "Process invoice 29" with a shorter
        trace had its own invoice's run below the top 3, behind other invoices' runs (all ADDs
        of other values), and was ADDed apart from its own task (``bench_templated.py``).
        Returns the same-task runs' ids: the judge sees them whatever their similarity (``prefilter``)."""
        limit = self._settings.top_k * max(len(group), 1) * OVERSAMPLE
        rows = await self._runs.same_task(tenant, scope, [p.task_id for p in group], limit=limit, connection=connection)
        if not rows:
            return set()
        by_task: dict[str, list[tuple[str, Vectors]]] = {}
        for run_id, task_id, vector in rows:
            by_task.setdefault(task_id, []).append((run_id, vector))
        for p in group:
            mine = by_task.get(p.task_id)
            if not mine or p.vector is None:
                continue
            known = {key for key, _ in hits[p.position]}
            scores = np.stack([v for _, v in mine]) @ p.vector
            extra = [(key, float(score)) for (key, _), score in zip(mine, scores, strict=True) if key not in known]
            extra.sort(key=lambda hit: -hit[1])
            hits[p.position] = hits[p.position] + extra[: self._settings.top_k]
        return {run_id for run_id, _, _ in rows}

    @property
    def judge_configured(self) -> str:
        """The judge a run past the pre-filter meets: "llm" or "rules" (no LLM judge configured)."""
        return "rules" if self._llm_judge is None else "llm"

    def settle(self, plan: Plan, view: View, *, pair_judge: bool, low_similarity: float | None) -> Plan:
        """The plan as recorded (the thresholds and judges it met), remembered in ``view``: a later
        run of the batch sees it (the batch deduplicates itself)."""
        low = self._settings.low_similarity if low_similarity is None else low_similarity
        plan = replace(plan, low_similarity=low, judge=self.judge_configured, pair_judge=pair_judge)
        self._remember(plan, view)
        return plan

    @staticmethod
    def unprepared(batch: Sequence[Prepared], view: View) -> list[Prepared]:
        """Runs left unembedded as exact duplicates whose stored twin is gone (purged) since: they
        must be summarised and embedded after all, and the batch planned again."""
        return [p for p in batch if p.vector is None and (*p.scope, p.content_hash) not in view.hashes]

    @staticmethod
    def _check_explicit(p: Prepared, view: View) -> None:
        """A stored id with other content, or a ``replaces`` outside this scope and task: 4xx, nothing written."""
        existing = view.stored.get(p.data.id) if p.data.id is not None else None
        if existing is not None and (
            existing.content_hash != p.content_hash or (existing.agent_id, existing.user_id) != p.scope
        ):
            raise ConflictError(f"{p.field_prefix}id", f"run {p.data.id!r} already exists with different content")
        if p.data.replaces is None:
            return
        target = view.stored.get(p.data.replaces)
        field_name = f"{p.field_prefix}replaces"
        if target is None:
            raise InvalidInputError(field_name, f"no stored run {p.data.replaces!r}")
        if (target.agent_id, target.user_id) != p.scope:
            raise InvalidInputError(
                field_name,
                f"run {target.id!r} is in another scope (agent {target.agent_id!r}, user {target.user_id!r}); "
                "a run only replaces runs of its own agent and user",
            )
        if target.task_id != p.task_id:
            raise InvalidInputError(field_name, f"run {target.id!r} is for another task; REPLACE needs the same task")
        if target.status != "active":
            raise ConflictError(field_name, f"run {target.id!r} is already superseded")

    def _nearest(self, p: Prepared, found: list[tuple[str, float]], view: View) -> list[Candidate]:
        out: dict[str, Candidate] = {}
        for key, score in found:
            stored = view.stored.get(key)
            if stored is None or stored.status != "active" or key in view.retired:
                continue
            out[key] = _candidate(stored, score, p.task_id, p.data.task)
        assert p.vector is not None  # a run left unembedded is an exact duplicate: never searched (see unprepared)
        for candidate, similarity in view.pending.nearest(p.scope, p.vector, self._settings.top_k, skip=view.retired):
            out[candidate.run_id] = replace(
                candidate,
                similarity=similarity,
                same_task=candidate.task_id == p.task_id,
                **kinship(candidate.task, p.data.task),
            )
        ranked = sorted(out.values(), key=lambda c: -c.similarity)
        top = self._settings.top_k
        # the same task's runs are judged even below the top k (``_add_same_task``)
        return ranked[:top] + [c for c in ranked[top:] if c.same_task][:top]

    @staticmethod
    def _judged(p: Prepared, nearest: list[Candidate], judge: PairJudge, low: float) -> list[Candidate]:
        """The candidates a judge will see (at or above the low threshold), with the pair judge's
        verdict on each: does it say what this run says?"""
        seen = [c for c in nearest if c.similarity >= low]
        if not seen:
            return nearest
        said = judge.duplicates([(p.summary.text, c.summary) for c in seen], [c.similarity for c in seen])
        verdicts = {c.run_id: duplicate for c, duplicate in zip(seen, said, strict=True)}
        return [replace(c, duplicate=verdicts[c.run_id]) if c.run_id in verdicts else c for c in nearest]

    def screen(
        self,
        p: Prepared,
        view: View,
        *,
        duplicate_threshold: float,
        pair_judge: PairJudge | None,
        low_similarity: float | None,
    ) -> Plan | Screened:
        """Seed 003's cheap stage, without any LLM: a re-sent run, the caller's own REPLACE, and the
        pre-filter (an exact duplicate, nothing similar enough). What it cannot decide goes to the
        judge, with the candidates it sees. With the tenant's ``pair_judge``, that judge decides which
        candidates are duplicates (``judgement.is_duplicate``); without one, the cosine threshold does."""
        low = self._settings.low_similarity if low_similarity is None else low_similarity
        found = view.hits[p.position]
        stored = view.stored.get(p.run_id)
        if p.data.id is not None and stored is not None:
            verdict = Verdict(
                "NOT", p.run_id, f"Run {p.run_id} was already admitted with this content", "prefilter", "resent"
            )
            return Plan(p, verdict, [], duplicate_threshold, resent=True)
        exact = view.hashes.get((*p.scope, p.content_hash))
        nearest = [] if exact is not None else self._nearest(p, found, view)
        if pair_judge is not None and nearest:
            nearest = self._judged(p, nearest, pair_judge, low)
        if exact is None and p.data.replaces is not None:
            target = p.data.replaces
            verdict = Verdict(
                "REPLACE", target, f"The caller named {target} as replaced", "explicit", "caller_replaces"
            )
            return Plan(p, verdict, nearest, duplicate_threshold)
        screened = prefilter(
            p.incoming,
            nearest,
            exact_duplicate_of=exact,
            low_similarity=low,
            duplicate_threshold=duplicate_threshold,
        )
        if isinstance(screened, Verdict):
            return Plan(p, screened, nearest, duplicate_threshold)
        return Screened(screened, nearest, duplicate_threshold)

    def by_rules(self, p: Prepared, screened: Screened) -> Plan:
        """The rule judge: seed 003's judge without an LLM."""
        rules, run, threshold = self._rule_judge, p.incoming, screened.duplicate_threshold
        verdict = rules.judge(run, screened.screening.candidates, duplicate_threshold=threshold)
        steps = rules.by_threshold(run, screened.screening.candidates)
        return Plan(p, verdict, screened.nearest, threshold, by_threshold=steps)

    async def by_llm(self, p: Prepared, screened: Screened) -> Plan:
        """The LLM judge; an answer it cannot use takes the configured fail-safe (``fail_safe``:
        the rule judge, or a fixed decision), saying why. Raises ``NoExpensiveStage`` without one."""
        if self._llm_judge is None:
            raise NoExpensiveStage("no LLM judge is configured: the rule judge decides")
        rules, run = self._rule_judge, p.incoming
        nearest, duplicate_threshold = screened.nearest, screened.duplicate_threshold
        candidates = screened.screening.candidates
        answer = await self._llm_judge.judge(run, candidates, likely_duplicate=screened.screening.likely_duplicate)
        first = candidates[0]
        hint_from = first.similarity if first.duplicate is None and same_structure(run, first) else None
        hint = screened.screening.likely_duplicate
        if not isinstance(answer, JudgeFailure):
            return Plan(p, answer, nearest, duplicate_threshold, likely_duplicate=hint, likely_duplicate_from=hint_from)
        why = f"{answer.reason}: {answer.detail}"
        fail_safe = self._settings.fail_safe
        schedule: tuple[Step, ...] | None = None
        if fail_safe == "rules":
            schedule = rules.by_threshold(run, candidates)
            fallback = rules.judge(run, candidates, duplicate_threshold=duplicate_threshold)
            verdict = Verdict(
                fallback.decision,
                fallback.target,
                f"{fallback.reason} (the LLM judge's answer was unusable: {why})",
                "fail_safe",
                f"{answer.reason}->{fallback.rule}",
                judge="rules",
                llm=answer.trace,
            )
        else:
            verdict = Verdict(
                fail_safe,
                None,
                f"Fail-safe {fail_safe}: the LLM judge's answer was unusable ({why})",
                "fail_safe",
                answer.reason,
                judge="llm",
                llm=answer.trace,
            )
        return Plan(
            p,
            verdict,
            nearest,
            duplicate_threshold,
            fail_safe=why,
            by_threshold=schedule,
            likely_duplicate=hint,
            likely_duplicate_from=hint_from,
        )

    @staticmethod
    def _remember(plan: Plan, view: View) -> None:
        p = plan.prepared
        if not plan.stores:
            return
        view.hashes[(*p.scope, p.content_hash)] = p.run_id
        run = p.incoming
        candidate = Candidate(
            run_id=run.run_id,
            similarity=1.0,
            task_id=run.task_id,
            summary=run.summary,
            outcome=run.outcome,
            references=run.references,
            artifacts=run.artifacts,
            same_task=True,
            task=run.task,
        )
        assert p.vector is not None  # a run to be stored was embedded (see unprepared)
        view.pending.add(p.scope, candidate, p.vector)
        if plan.verdict.decision == "REPLACE" and plan.verdict.target is not None:
            view.retired.add(plan.verdict.target)

"""The asyncio client: ``AsyncClient(base_url, api_key=…)``, the same operations as ``Client``
(``calls``), awaited; nothing blocks the event loop, retries' waits included.

    async with AsyncClient("http://127.0.0.1:8000", api_key="sk-…") as phronesis:
        decision = await phronesis.executive.decide({"text": "the greenhouse door is open", "source": "home"})

Pass ``transport=httpx.MockTransport(handler)`` (an async handler) to test without a server."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime
from types import TracebackType
from typing import TypeVar

import httpx

from phronesis.client import calls, models
from phronesis.client.calls import Call, Json
from phronesis.client.config import DEFAULT_TIMEOUT, Connection
from phronesis.client.retry import RetryPolicy

__all__ = ["AsyncClient"]

T = TypeVar("T")


class AsyncClient:
    """A phronesis server's API, one namespace per part (``help(client.routing)`` lists one's
    operations): ``executive``, ``heuristics``, ``routing``, ``admission``, ``proactive``,
    ``decisions``, ``replay``, ``settings``. Bodies are the server's models or plain dicts
    (validated before sending); answers are the server's models."""

    executive: _Executive
    heuristics: _Heuristics
    routing: _Routing
    admission: _Admission
    proactive: _Proactive
    decisions: _Decisions
    replay: _Replay
    settings: _Settings

    def __init__(
        self,
        base_url: str | None = None,
        *,
        api_key: str | None = None,
        timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        connection = Connection.resolve(base_url, api_key)
        self.retry = retry or RetryPolicy()
        self._http = httpx.AsyncClient(
            base_url=connection.base_url, headers=connection.headers, timeout=timeout, transport=transport
        )
        self.executive = _Executive(self)
        self.heuristics = _Heuristics(self)
        self.routing = _Routing(self)
        self.admission = _Admission(self)
        self.proactive = _Proactive(self)
        self.decisions = _Decisions(self)
        self.replay = _Replay(self)
        self.settings = _Settings(self)

    async def send(self, call: Call[T]) -> T:
        """Send one operation (``calls``), retried as ``retry`` says; its answer, or the error."""
        attempt = 1
        while True:
            try:
                response = await self._http.request(**calls.request_of(call))
            except httpx.TransportError as error:
                await asyncio.sleep(self.retry.after_error(attempt, error, f"{call.method} {call.path}"))
            else:
                wait = self.retry.after_response(attempt, response)
                if wait is None:
                    return calls.answer(call, response)
                await asyncio.sleep(wait)
            attempt += 1

    async def close(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        await self.close()


class _Executive:
    """Decide on an event, observe what followed, rate the decision."""

    def __init__(self, client: AsyncClient) -> None:
        self._c = client

    async def decide(self, event: models.EventRequest | Json) -> models.EventDecision:
        """Fire a learned heuristic, or ask the LLM, for this event."""
        return await self._c.send(calls.decide(event))

    async def observe(self, event: models.ObservedEvent | Json) -> models.Observation:
        """A new event from a source, an undo of its recent fires or a sign they were ignored."""
        return await self._c.send(calls.observe(event))

    async def feedback(self, rating: models.Feedback | Json) -> models.FeedbackReceipt:
        """Rate a decision (positive/negative, a user score or a developer score)."""
        return await self._c.send(calls.feedback(rating))

    async def report(self, *, since: datetime | None = None) -> models.ExecutiveReport:
        """Per strategy: decisions by path, LLM calls, predicted and rated success."""
        return await self._c.send(calls.executive_report(since=since))


class _Heuristics:
    """The heuristics the executive fires, and what they learned."""

    def __init__(self, client: AsyncClient) -> None:
        self._c = client

    async def create(self, heuristic: models.HeuristicCreate | Json) -> models.HeuristicCreated:
        """Teach a heuristic: a condition, an action, a confidence."""
        return await self._c.send(calls.create_heuristic(heuristic))

    async def get(self, heuristic_id: str) -> models.HeuristicDetail:
        """One heuristic, with its scope (examples and counter-examples)."""
        return await self._c.send(calls.get_heuristic(heuristic_id))

    async def add_example(self, heuristic_id: str, example: models.ExampleIn | Json) -> models.Example:
        """A situation added to a heuristic's scope: an example, or a counter-example (``kind``)."""
        return await self._c.send(calls.add_heuristic_example(heuristic_id, example))

    async def remove_example(self, heuristic_id: str, example_id: str) -> None:
        """A situation removed from a heuristic's scope."""
        return await self._c.send(calls.remove_heuristic_example(heuristic_id, example_id))

    async def page(
        self, *, domain: str | None = None, origin: str | None = None, limit: int = 100, offset: int = 0
    ) -> models.HeuristicPage:
        """A page of the tenant's heuristics."""
        return await self._c.send(calls.list_heuristics(domain=domain, origin=origin, limit=limit, offset=offset))

    async def match(self, asked: models.MatchRequest | Json) -> models.MatchResponse:
        """The heuristics whose condition matches a text, best first."""
        return await self._c.send(calls.match_heuristics(asked))

    async def update(self, heuristic_id: str, change: models.HeuristicUpdate | Json) -> models.Heuristic:
        """Change a heuristic (a new confidence re-seeds its prior)."""
        return await self._c.send(calls.update_heuristic(heuristic_id, change))

    async def delete(self, heuristic_id: str) -> None:
        """Delete a heuristic."""
        return await self._c.send(calls.delete_heuristic(heuristic_id))

    async def evidence(self, heuristic_id: str, evidence: models.ConfidenceRequest | Json) -> models.ConfidenceUpdate:
        """Evidence for or against a heuristic (atomic)."""
        return await self._c.send(calls.heuristic_evidence(heuristic_id, evidence))

    async def record_fire(self, heuristic_id: str, fire: models.FireRequest | Json) -> models.FireRecord:
        """A heuristic fired for an event: counted, and watched for undo, ignore or timeout."""
        return await self._c.send(calls.record_fire(heuristic_id, fire))

    async def history(self, heuristic_id: str, *, limit: int = 1000, offset: int = 0) -> models.HistoryPage:
        """A heuristic's confidence over time, newest first, each step with the signal that moved it."""
        return await self._c.send(calls.heuristic_history(heuristic_id, limit=limit, offset=offset))

    async def import_(
        self, heuristics: Sequence[models.HeuristicCreate | Json], *, upsert: bool = False
    ) -> models.ImportResult:
        """Import heuristics, all or nothing (JSON Lines on the wire); ``upsert``: replace an existing id."""
        return await self._c.send(calls.import_heuristics(heuristics, upsert=upsert))

    async def export(self) -> list[models.HeuristicCreate]:
        """Every heuristic of the tenant, as ``import_`` takes them back."""
        return await self._c.send(calls.export_heuristics())

    async def channel(self) -> models.ChannelReport:
        """What each implicit outcome says about a fire, learned from rated fires."""
        return await self._c.send(calls.learning_channel())


class _Routing:
    """A conversation's turns routed and rated; its tools and documents."""

    def __init__(self, client: AsyncClient) -> None:
        self._c = client

    async def create_session(self, session: models.NewSession | Json | None = None) -> models.Session:
        """Start a conversation (optionally with lead context and earlier turns)."""
        return await self._c.send(calls.create_session(session or {}))

    async def session(self, session_id: str, *, turns: int = 20) -> models.Session:
        """A session: mode, counters, recent messages."""
        return await self._c.send(calls.get_session(session_id, turns=turns))

    async def route(self, session_id: str, turn: models.RouteRequest | Json) -> models.RouteResult:
        """RETRIEVE, REASON_ONLY, USE_TOOL, CLARIFY or ESCALATE for a user turn."""
        return await self._c.send(calls.route(session_id, turn))

    async def feedback(self, session_id: str, rating: models.RouteFeedbackIn | Json) -> models.RouteFeedback:
        """Rate a routed turn (and say what it should have been)."""
        return await self._c.send(calls.route_feedback(session_id, rating))

    async def add_message(self, session_id: str, message: models.MessageIn | Json) -> models.Session:
        """The agent's or a human's reply, added to the conversation."""
        return await self._c.send(calls.add_message(session_id, message))

    async def handback(self, session_id: str) -> models.Session:
        """A human hands the session back to automatic routing."""
        return await self._c.send(calls.handback(session_id))

    async def tool_outcome(self, session_id: str, outcome: models.ToolOutcomeIn | Json) -> models.ToolOutcomeResult:
        """What a tool call did: retry, proceed without it, or escalate."""
        return await self._c.send(calls.tool_outcome(session_id, outcome))

    async def put_tool(self, name: str, tool: models.ToolPut | Json) -> models.Tool:
        """Register or replace a tool."""
        return await self._c.send(calls.put_tool(name, tool))

    async def tools(self, *, limit: int = 100, offset: int = 0) -> models.ToolPage:
        """The tenant's registered tools."""
        return await self._c.send(calls.list_tools(limit=limit, offset=offset))

    async def delete_tool(self, name: str) -> None:
        """Unregister a tool."""
        return await self._c.send(calls.delete_tool(name))

    async def add_documents(self, documents: calls.Documents) -> models.DocumentsStored:
        """Add documents to the knowledge base: a list of them, or the API's body ``{"documents": [...]}``."""
        return await self._c.send(calls.add_documents(documents))

    async def submit_document_job(self, documents: calls.Documents) -> models.DocumentJob:
        """Add documents in the background: a batch too large for one request. Poll ``document_job``."""
        return await self._c.send(calls.submit_document_job(documents))

    async def document_job(self, job_id: str) -> models.DocumentJob:
        """A document job: ``queued``, ``running``, ``done`` or ``failed`` (with why), and how far it got."""
        return await self._c.send(calls.document_job(job_id))

    async def cancel_document_job(self, job_id: str) -> models.DocumentJob:
        """Cancel a document job that is waiting or running; what it stored stays."""
        return await self._c.send(calls.cancel_document_job(job_id))

    async def document_jobs(self, *, limit: int = 100, offset: int = 0) -> models.DocumentJobPage:
        """The tenant's document jobs, newest first."""
        return await self._c.send(calls.list_document_jobs(limit=limit, offset=offset))

    async def documents(self, *, limit: int = 100, offset: int = 0) -> models.DocumentPage:
        """The tenant's documents, oldest first."""
        return await self._c.send(calls.list_documents(limit=limit, offset=offset))

    async def put_document(self, document_id: str, document: models.DocumentIn | Json) -> models.DocumentPut:
        """Add or replace one document, by id, in one step (``created``: it was new)."""
        return await self._c.send(calls.put_document(document_id, document))

    async def delete_document(self, document_id: str) -> None:
        """Remove a document."""
        return await self._c.send(calls.delete_document(document_id))


class _Admission:
    """Finished runs admitted to memory, or not; memory searched."""

    def __init__(self, client: AsyncClient) -> None:
        self._c = client

    async def admit(self, run: models.RunIn | Json) -> models.AdmissionResult:
        """ADD, NOT, REPLACE or MERGE a finished run into memory, and why."""
        return await self._c.send(calls.admit(run))

    async def admit_batch(self, runs: models.RunBatch | Json) -> models.BatchResult:
        """Many runs in one transaction, deduplicated within the batch too."""
        return await self._c.send(calls.admit_batch(runs))

    async def search(
        self,
        query: str,
        *,
        agent_id: str = "default",
        user_id: str = "",
        k: int = 5,
        min_similarity: float = 0.0,
        collapse: bool = False,
    ) -> models.RunHits:
        """The active runs most similar to a query."""
        return await self._c.send(
            calls.search_runs(
                query, agent_id=agent_id, user_id=user_id, k=k, min_similarity=min_similarity, collapse=collapse
            )
        )

    async def run(self, run_id: str) -> models.Run:
        """One stored run."""
        return await self._c.send(calls.get_run(run_id))

    async def runs(
        self,
        *,
        agent_id: str | None = None,
        user_id: str | None = None,
        status: str | None = None,
        task_id: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> models.RunPage:
        """Stored runs, oldest first."""
        return await self._c.send(
            calls.list_runs(
                agent_id=agent_id, user_id=user_id, status=status, task_id=task_id, limit=limit, offset=offset
            )
        )

    async def delete_run(self, run_id: str) -> None:
        """Forget a run."""
        return await self._c.send(calls.delete_run(run_id))

    async def undo(self, decision_id: str) -> models.UndoResult:
        """Take an admission decision back."""
        return await self._c.send(calls.undo_decision(decision_id))

    async def feedback(self, decision_id: str, rating: models.AdmissionFeedbackIn | Json) -> models.AdmissionFeedback:
        """Rate an admission decision (and say what it should have been)."""
        return await self._c.send(calls.admission_feedback(decision_id, rating))

    async def decisions(
        self,
        *,
        run_id: str | None = None,
        decision: str | None = None,
        target_run_id: str | None = None,
        agent_id: str | None = None,
        user_id: str | None = None,
        batch_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> models.MemoryDecisionPage:
        """The memory decisions (ADD, NOT, REPLACE, MERGE), newest first, with the API's filters."""
        return await self._c.send(
            calls.memory_decisions(
                run_id=run_id,
                decision=decision,
                target_run_id=target_run_id,
                agent_id=agent_id,
                user_id=user_id,
                batch_id=batch_id,
                since=since,
                until=until,
                limit=limit,
                offset=offset,
            )
        )


class _Proactive:
    """Users, their signals, and what their cycles decide."""

    def __init__(self, client: AsyncClient) -> None:
        self._c = client

    async def put_user(self, user_id: str, user: models.UserIn | Json) -> models.UserProfile:
        """Create or replace a user's proactive profile."""
        return await self._c.send(calls.put_user(user_id, user))

    async def user(self, user_id: str) -> models.UserProfile:
        """A user's profile with their trust level."""
        return await self._c.send(calls.get_user(user_id))

    async def users(self, *, limit: int = 100, offset: int = 0) -> models.UserPage:
        """The tenant's users."""
        return await self._c.send(calls.list_users(limit=limit, offset=offset))

    async def delete_user(self, user_id: str) -> None:
        """Forget a user and everything proactive about them."""
        return await self._c.send(calls.delete_user(user_id))

    async def add_signals(self, user_id: str, signals: models.SignalBatch | Json) -> models.SignalsStored:
        """Signals for a user's next cycles (deduplicated)."""
        return await self._c.send(calls.add_signals(user_id, signals))

    async def signals(
        self, user_id: str, *, pending: bool | None = None, limit: int = 100, offset: int = 0
    ) -> models.SignalPage:
        """A user's signals."""
        return await self._c.send(calls.list_signals(user_id, pending=pending, limit=limit, offset=offset))

    async def user_message(self, user_id: str, message: models.UserMessageIn | Json) -> models.UserReply:
        """A message from the user: a reply to a send, an opt-out, or activity."""
        return await self._c.send(calls.user_message(user_id, message))

    async def opt_out(self, user_id: str, asked: models.OptOutIn | Json) -> models.UserProfile:
        """Stop proactive messages (all, or some categories)."""
        return await self._c.send(calls.opt_out(user_id, asked))

    async def opt_in(self, user_id: str, asked: models.OptOutIn | Json) -> models.UserProfile:
        """Resume proactive messages."""
        return await self._c.send(calls.opt_in(user_id, asked))

    async def mute(self, user_id: str, asked: models.MuteIn | Json) -> models.UserProfile:
        """Silence a user until a time."""
        return await self._c.send(calls.mute(user_id, asked))

    async def unmute(self, user_id: str) -> models.UserProfile:
        """End a user's mute."""
        return await self._c.send(calls.unmute(user_id))

    async def pause_state(self) -> models.PauseState:
        """The tenant's proactive pause (kill switch)."""
        return await self._c.send(calls.get_pause())

    async def set_pause(self, asked: models.PauseIn | Json) -> models.PauseState:
        """Pause or resume every proactive message of the tenant."""
        return await self._c.send(calls.set_pause(asked))

    async def insights(
        self, user_id: str, *, fresh: bool = True, limit: int = 100, offset: int = 0
    ) -> models.InsightPage:
        """A user's deferred insights."""
        return await self._c.send(calls.list_insights(user_id, fresh=fresh, limit=limit, offset=offset))

    async def run_cycle(self, user_id: str | models.CycleRequest | Json) -> models.CycleResult:
        """Run one user's cycle now (send, defer or stay silent): the user's id, or the API's body."""
        return await self._c.send(calls.run_cycle(user_id))

    async def run_tick(self) -> models.TickReport:
        """Every due user's cycle now: one scheduler tick."""
        return await self._c.send(calls.run_tick())

    async def stats(self, *, days: int = 7) -> dict[str, dict[str, int]]:
        """The tenant's proactive counters per UTC day."""
        return await self._c.send(calls.proactive_stats(days=days))

    async def feedback(
        self,
        *,
        user_id: str | None = None,
        outcome: str | None = None,
        category: str | None = None,
        since: datetime | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> models.FeedbackPage:
        """Proactive sends and their feedback, newest first."""
        return await self._c.send(
            calls.proactive_feedback(
                user_id=user_id, outcome=outcome, category=category, since=since, limit=limit, offset=offset
            )
        )

    async def preview(self, asked: models.PreviewIn | Json) -> models.Preview:
        """What a user's cycle would decide; nothing is written or sent."""
        return await self._c.send(calls.preview(asked))

    async def timeline(self, user_id: str, *, days: float = 7, limit: int = 200) -> models.Timeline:
        """Why the user got a message or did not."""
        return await self._c.send(calls.timeline(user_id, days=days, limit=limit))

    async def feedback_summary(self, user_id: str) -> models.FeedbackSummary:
        """A user's engagement by category."""
        return await self._c.send(calls.feedback_summary(user_id))


class _Decisions:
    """The decision records, every decision point's."""

    def __init__(self, client: AsyncClient) -> None:
        self._c = client

    async def get(self, decision_id: str) -> models.DecisionRecord:
        """One decision record."""
        return await self._c.send(calls.get_decision(decision_id))

    async def page(
        self,
        *,
        kind: str | None = None,
        strategy: str | None = None,
        path: str | None = None,
        subject_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> models.DecisionPage:
        """Decision records, newest first."""
        return await self._c.send(
            calls.list_decisions(
                kind=kind,
                strategy=strategy,
                path=path,
                subject_id=subject_id,
                since=since,
                until=until,
                limit=limit,
                offset=offset,
            )
        )


class _Replay:
    """What-if replay and tuning over the logged decisions."""

    def __init__(self, client: AsyncClient) -> None:
        self._c = client

    async def run(self, asked: models.ReplayIn | Json) -> models.ReplayReport:
        """What another setting would have done with the logged decisions."""
        return await self._c.send(calls.replay(asked))

    async def tune(self, asked: models.TuneIn | Json) -> models.TuneReport:
        """The setting the logged decisions argue for, with the table behind it."""
        return await self._c.send(calls.tune(asked))


class _Settings:
    """The tenant's tunable settings."""

    def __init__(self, client: AsyncClient) -> None:
        self._c = client

    async def list_all(self, *, limit: int = 100, offset: int = 0) -> models.SettingPage:
        """The tenant's tunable settings: used, configured, applied."""
        return await self._c.send(calls.list_settings(limit=limit, offset=offset))

    async def get(self, name: models.SettingName) -> models.AppliedSetting:
        """One tunable setting of the tenant."""
        return await self._c.send(calls.get_setting(name))

    async def apply(self, name: models.SettingName, change: models.ApplyIn | Json) -> models.AppliedSetting:
        """Apply (or with value None, reset) the tenant's value of a setting."""
        return await self._c.send(calls.apply_setting(name, change))

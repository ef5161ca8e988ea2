"""The blocking client: ``Client(base_url, api_key=…)``, one namespace per decision point.
Written from the asyncio client (``aio.py``) by ``tools/generate_sync_client.py``: do not edit;
edit ``aio.py`` and regenerate.

    with Client("http://127.0.0.1:8000", api_key="sk-…") as phronesis:
        decision = phronesis.executive.decide({"text": "the greenhouse door is open", "source": "home"})

Pass ``transport=httpx.MockTransport(handler)`` to test your agent without a server."""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime
from types import TracebackType
from typing import TypeVar

import httpx

from phronesis.client import calls, models
from phronesis.client.calls import Call, Json
from phronesis.client.config import DEFAULT_TIMEOUT, Connection
from phronesis.client.retry import RetryPolicy

__all__ = ["Client"]

T = TypeVar("T")


class Client:
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
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        connection = Connection.resolve(base_url, api_key)
        self.retry = retry or RetryPolicy()
        self._http = httpx.Client(
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

    def send(self, call: Call[T]) -> T:
        """Send one operation (``calls``), retried as ``retry`` says; its answer, or the error."""
        attempt = 1
        while True:
            try:
                response = self._http.request(**calls.request_of(call))
            except httpx.TransportError as error:
                time.sleep(self.retry.after_error(attempt, error, f"{call.method} {call.path}"))
            else:
                wait = self.retry.after_response(attempt, response)
                if wait is None:
                    return calls.answer(call, response)
                time.sleep(wait)
            attempt += 1

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()


class _Executive:
    """Decide on an event, observe what followed, rate the decision."""

    def __init__(self, client: Client) -> None:
        self._c = client

    def decide(self, event: models.EventRequest | Json) -> models.EventDecision:
        """Fire a learned heuristic, or ask the LLM, for this event."""
        return self._c.send(calls.decide(event))

    def observe(self, event: models.ObservedEvent | Json) -> models.Observation:
        """A new event from a source, an undo of its recent fires or a sign they were ignored."""
        return self._c.send(calls.observe(event))

    def feedback(self, rating: models.Feedback | Json) -> models.FeedbackReceipt:
        """Rate a decision (positive/negative, a user score or a developer score)."""
        return self._c.send(calls.feedback(rating))

    def report(self, *, since: datetime | None = None) -> models.ExecutiveReport:
        """Per strategy: decisions by path, LLM calls, predicted and rated success."""
        return self._c.send(calls.executive_report(since=since))


class _Heuristics:
    """The heuristics the executive fires, and what they learned."""

    def __init__(self, client: Client) -> None:
        self._c = client

    def create(self, heuristic: models.HeuristicCreate | Json) -> models.HeuristicCreated:
        """Teach a heuristic: a condition, an action, a confidence."""
        return self._c.send(calls.create_heuristic(heuristic))

    def get(self, heuristic_id: str) -> models.HeuristicDetail:
        """One heuristic, with its scope (examples and counter-examples)."""
        return self._c.send(calls.get_heuristic(heuristic_id))

    def add_example(self, heuristic_id: str, example: models.ExampleIn | Json) -> models.Example:
        """A situation added to a heuristic's scope: an example, or a counter-example (``kind``)."""
        return self._c.send(calls.add_heuristic_example(heuristic_id, example))

    def remove_example(self, heuristic_id: str, example_id: str) -> None:
        """A situation removed from a heuristic's scope."""
        return self._c.send(calls.remove_heuristic_example(heuristic_id, example_id))

    def page(
        self, *, domain: str | None = None, origin: str | None = None, limit: int = 100, offset: int = 0
    ) -> models.HeuristicPage:
        """A page of the tenant's heuristics."""
        return self._c.send(calls.list_heuristics(domain=domain, origin=origin, limit=limit, offset=offset))

    def match(self, asked: models.MatchRequest | Json) -> models.MatchResponse:
        """The heuristics whose condition matches a text, best first."""
        return self._c.send(calls.match_heuristics(asked))

    def update(self, heuristic_id: str, change: models.HeuristicUpdate | Json) -> models.Heuristic:
        """Change a heuristic (a new confidence re-seeds its prior)."""
        return self._c.send(calls.update_heuristic(heuristic_id, change))

    def delete(self, heuristic_id: str) -> None:
        """Delete a heuristic."""
        return self._c.send(calls.delete_heuristic(heuristic_id))

    def evidence(self, heuristic_id: str, evidence: models.ConfidenceRequest | Json) -> models.ConfidenceUpdate:
        """Evidence for or against a heuristic (atomic)."""
        return self._c.send(calls.heuristic_evidence(heuristic_id, evidence))

    def record_fire(self, heuristic_id: str, fire: models.FireRequest | Json) -> models.FireRecord:
        """A heuristic fired for an event: counted, and watched for undo, ignore or timeout."""
        return self._c.send(calls.record_fire(heuristic_id, fire))

    def history(self, heuristic_id: str, *, limit: int = 1000, offset: int = 0) -> models.HistoryPage:
        """A heuristic's confidence over time, newest first, each step with the signal that moved it."""
        return self._c.send(calls.heuristic_history(heuristic_id, limit=limit, offset=offset))

    def import_(
        self, heuristics: Sequence[models.HeuristicCreate | Json], *, upsert: bool = False
    ) -> models.ImportResult:
        """Import heuristics, all or nothing (JSON Lines on the wire); ``upsert``: replace an existing id."""
        return self._c.send(calls.import_heuristics(heuristics, upsert=upsert))

    def export(self) -> list[models.HeuristicCreate]:
        """Every heuristic of the tenant, as ``import_`` takes them back."""
        return self._c.send(calls.export_heuristics())

    def channel(self) -> models.ChannelReport:
        """What each implicit outcome says about a fire, learned from rated fires."""
        return self._c.send(calls.learning_channel())


class _Routing:
    """A conversation's turns routed and rated; its tools and documents."""

    def __init__(self, client: Client) -> None:
        self._c = client

    def create_session(self, session: models.NewSession | Json | None = None) -> models.Session:
        """Start a conversation (optionally with lead context and earlier turns)."""
        return self._c.send(calls.create_session(session or {}))

    def session(self, session_id: str, *, turns: int = 20) -> models.Session:
        """A session: mode, counters, recent messages."""
        return self._c.send(calls.get_session(session_id, turns=turns))

    def route(self, session_id: str, turn: models.RouteRequest | Json) -> models.RouteResult:
        """RETRIEVE, REASON_ONLY, USE_TOOL, CLARIFY or ESCALATE for a user turn."""
        return self._c.send(calls.route(session_id, turn))

    def feedback(self, session_id: str, rating: models.RouteFeedbackIn | Json) -> models.RouteFeedback:
        """Rate a routed turn (and say what it should have been)."""
        return self._c.send(calls.route_feedback(session_id, rating))

    def add_message(self, session_id: str, message: models.MessageIn | Json) -> models.Session:
        """The agent's or a human's reply, added to the conversation."""
        return self._c.send(calls.add_message(session_id, message))

    def handback(self, session_id: str) -> models.Session:
        """A human hands the session back to automatic routing."""
        return self._c.send(calls.handback(session_id))

    def tool_outcome(self, session_id: str, outcome: models.ToolOutcomeIn | Json) -> models.ToolOutcomeResult:
        """What a tool call did: retry, proceed without it, or escalate."""
        return self._c.send(calls.tool_outcome(session_id, outcome))

    def put_tool(self, name: str, tool: models.ToolPut | Json) -> models.Tool:
        """Register or replace a tool."""
        return self._c.send(calls.put_tool(name, tool))

    def tools(self, *, limit: int = 100, offset: int = 0) -> models.ToolPage:
        """The tenant's registered tools."""
        return self._c.send(calls.list_tools(limit=limit, offset=offset))

    def delete_tool(self, name: str) -> None:
        """Unregister a tool."""
        return self._c.send(calls.delete_tool(name))

    def add_documents(self, documents: calls.Documents) -> models.DocumentsStored:
        """Add documents to the knowledge base: a list of them, or the API's body ``{"documents": [...]}``."""
        return self._c.send(calls.add_documents(documents))

    def submit_document_job(self, documents: calls.Documents) -> models.DocumentJob:
        """Add documents in the background: a batch too large for one request. Poll ``document_job``."""
        return self._c.send(calls.submit_document_job(documents))

    def document_job(self, job_id: str) -> models.DocumentJob:
        """A document job: ``queued``, ``running``, ``done`` or ``failed`` (with why), and how far it got."""
        return self._c.send(calls.document_job(job_id))

    def cancel_document_job(self, job_id: str) -> models.DocumentJob:
        """Cancel a document job that is waiting or running; what it stored stays."""
        return self._c.send(calls.cancel_document_job(job_id))

    def document_jobs(self, *, limit: int = 100, offset: int = 0) -> models.DocumentJobPage:
        """The tenant's document jobs, newest first."""
        return self._c.send(calls.list_document_jobs(limit=limit, offset=offset))

    def documents(self, *, limit: int = 100, offset: int = 0) -> models.DocumentPage:
        """The tenant's documents, oldest first."""
        return self._c.send(calls.list_documents(limit=limit, offset=offset))

    def put_document(self, document_id: str, document: models.DocumentIn | Json) -> models.DocumentPut:
        """Add or replace one document, by id, in one step (``created``: it was new)."""
        return self._c.send(calls.put_document(document_id, document))

    def delete_document(self, document_id: str) -> None:
        """Remove a document."""
        return self._c.send(calls.delete_document(document_id))


class _Admission:
    """Finished runs admitted to memory, or not; memory searched."""

    def __init__(self, client: Client) -> None:
        self._c = client

    def admit(self, run: models.RunIn | Json) -> models.AdmissionResult:
        """ADD, NOT, REPLACE or MERGE a finished run into memory, and why."""
        return self._c.send(calls.admit(run))

    def admit_batch(self, runs: models.RunBatch | Json) -> models.BatchResult:
        """Many runs in one transaction, deduplicated within the batch too."""
        return self._c.send(calls.admit_batch(runs))

    def search(
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
        return self._c.send(
            calls.search_runs(
                query, agent_id=agent_id, user_id=user_id, k=k, min_similarity=min_similarity, collapse=collapse
            )
        )

    def run(self, run_id: str) -> models.Run:
        """One stored run."""
        return self._c.send(calls.get_run(run_id))

    def runs(
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
        return self._c.send(
            calls.list_runs(
                agent_id=agent_id, user_id=user_id, status=status, task_id=task_id, limit=limit, offset=offset
            )
        )

    def delete_run(self, run_id: str) -> None:
        """Forget a run."""
        return self._c.send(calls.delete_run(run_id))

    def undo(self, decision_id: str) -> models.UndoResult:
        """Take an admission decision back."""
        return self._c.send(calls.undo_decision(decision_id))

    def feedback(self, decision_id: str, rating: models.AdmissionFeedbackIn | Json) -> models.AdmissionFeedback:
        """Rate an admission decision (and say what it should have been)."""
        return self._c.send(calls.admission_feedback(decision_id, rating))

    def decisions(
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
        return self._c.send(
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

    def __init__(self, client: Client) -> None:
        self._c = client

    def put_user(self, user_id: str, user: models.UserIn | Json) -> models.UserProfile:
        """Create or replace a user's proactive profile."""
        return self._c.send(calls.put_user(user_id, user))

    def user(self, user_id: str) -> models.UserProfile:
        """A user's profile with their trust level."""
        return self._c.send(calls.get_user(user_id))

    def users(self, *, limit: int = 100, offset: int = 0) -> models.UserPage:
        """The tenant's users."""
        return self._c.send(calls.list_users(limit=limit, offset=offset))

    def delete_user(self, user_id: str) -> None:
        """Forget a user and everything proactive about them."""
        return self._c.send(calls.delete_user(user_id))

    def add_signals(self, user_id: str, signals: models.SignalBatch | Json) -> models.SignalsStored:
        """Signals for a user's next cycles (deduplicated)."""
        return self._c.send(calls.add_signals(user_id, signals))

    def signals(
        self, user_id: str, *, pending: bool | None = None, limit: int = 100, offset: int = 0
    ) -> models.SignalPage:
        """A user's signals."""
        return self._c.send(calls.list_signals(user_id, pending=pending, limit=limit, offset=offset))

    def user_message(self, user_id: str, message: models.UserMessageIn | Json) -> models.UserReply:
        """A message from the user: a reply to a send, an opt-out, or activity."""
        return self._c.send(calls.user_message(user_id, message))

    def opt_out(self, user_id: str, asked: models.OptOutIn | Json) -> models.UserProfile:
        """Stop proactive messages (all, or some categories)."""
        return self._c.send(calls.opt_out(user_id, asked))

    def opt_in(self, user_id: str, asked: models.OptOutIn | Json) -> models.UserProfile:
        """Resume proactive messages."""
        return self._c.send(calls.opt_in(user_id, asked))

    def mute(self, user_id: str, asked: models.MuteIn | Json) -> models.UserProfile:
        """Silence a user until a time."""
        return self._c.send(calls.mute(user_id, asked))

    def unmute(self, user_id: str) -> models.UserProfile:
        """End a user's mute."""
        return self._c.send(calls.unmute(user_id))

    def pause_state(self) -> models.PauseState:
        """The tenant's proactive pause (kill switch)."""
        return self._c.send(calls.get_pause())

    def set_pause(self, asked: models.PauseIn | Json) -> models.PauseState:
        """Pause or resume every proactive message of the tenant."""
        return self._c.send(calls.set_pause(asked))

    def insights(self, user_id: str, *, fresh: bool = True, limit: int = 100, offset: int = 0) -> models.InsightPage:
        """A user's deferred insights."""
        return self._c.send(calls.list_insights(user_id, fresh=fresh, limit=limit, offset=offset))

    def run_cycle(self, user_id: str | models.CycleRequest | Json) -> models.CycleResult:
        """Run one user's cycle now (send, defer or stay silent): the user's id, or the API's body."""
        return self._c.send(calls.run_cycle(user_id))

    def run_tick(self) -> models.TickReport:
        """Every due user's cycle now: one scheduler tick."""
        return self._c.send(calls.run_tick())

    def stats(self, *, days: int = 7) -> dict[str, dict[str, int]]:
        """The tenant's proactive counters per UTC day."""
        return self._c.send(calls.proactive_stats(days=days))

    def feedback(
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
        return self._c.send(
            calls.proactive_feedback(
                user_id=user_id, outcome=outcome, category=category, since=since, limit=limit, offset=offset
            )
        )

    def preview(self, asked: models.PreviewIn | Json) -> models.Preview:
        """What a user's cycle would decide; nothing is written or sent."""
        return self._c.send(calls.preview(asked))

    def timeline(self, user_id: str, *, days: float = 7, limit: int = 200) -> models.Timeline:
        """Why the user got a message or did not."""
        return self._c.send(calls.timeline(user_id, days=days, limit=limit))

    def feedback_summary(self, user_id: str) -> models.FeedbackSummary:
        """A user's engagement by category."""
        return self._c.send(calls.feedback_summary(user_id))


class _Decisions:
    """The decision records, every decision point's."""

    def __init__(self, client: Client) -> None:
        self._c = client

    def get(self, decision_id: str) -> models.DecisionRecord:
        """One decision record."""
        return self._c.send(calls.get_decision(decision_id))

    def page(
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
        return self._c.send(
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

    def __init__(self, client: Client) -> None:
        self._c = client

    def run(self, asked: models.ReplayIn | Json) -> models.ReplayReport:
        """What another setting would have done with the logged decisions."""
        return self._c.send(calls.replay(asked))

    def tune(self, asked: models.TuneIn | Json) -> models.TuneReport:
        """The setting the logged decisions argue for, with the table behind it."""
        return self._c.send(calls.tune(asked))


class _Settings:
    """The tenant's tunable settings."""

    def __init__(self, client: Client) -> None:
        self._c = client

    def list_all(self, *, limit: int = 100, offset: int = 0) -> models.SettingPage:
        """The tenant's tunable settings: used, configured, applied."""
        return self._c.send(calls.list_settings(limit=limit, offset=offset))

    def get(self, name: models.SettingName) -> models.AppliedSetting:
        """One tunable setting of the tenant."""
        return self._c.send(calls.get_setting(name))

    def apply(self, name: models.SettingName, change: models.ApplyIn | Json) -> models.AppliedSetting:
        """Apply (or with value None, reset) the tenant's value of a setting."""
        return self._c.send(calls.apply_setting(name, change))

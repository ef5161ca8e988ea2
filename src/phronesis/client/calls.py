"""Every operation the clients make, written once: its method, path, body and the model its
answer is read into. ``Client`` and ``AsyncClient`` only send these (``Call``), so the two can
never disagree on what an operation is.

A request body may be given as its model or as a plain mapping; a mapping is validated here,
before anything is sent, so bad input fails as the server would fail it, without a round trip."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel, TypeAdapter, ValidationError

from phronesis.client.errors import InvalidInput, UnexpectedAnswer, error_for
from phronesis.client.models import (
    AdmissionFeedback,
    AdmissionFeedbackIn,
    AdmissionResult,
    AppliedSetting,
    ApplyIn,
    BatchResult,
    ChannelReport,
    ConfidenceRequest,
    ConfidenceUpdate,
    CycleRequest,
    CycleResult,
    DecisionPage,
    DecisionRecord,
    DocumentBatch,
    DocumentIn,
    DocumentJob,
    DocumentJobPage,
    DocumentPage,
    DocumentsStored,
    EventDecision,
    EventRequest,
    Example,
    ExampleIn,
    ExecutiveReport,
    Feedback,
    FeedbackPage,
    FeedbackReceipt,
    FeedbackSummary,
    FireRecord,
    FireRequest,
    Heuristic,
    HeuristicCreate,
    HeuristicDetail,
    HeuristicPage,
    HeuristicUpdate,
    HistoryPage,
    ImportResult,
    InsightPage,
    MatchRequest,
    MatchResponse,
    MemoryDecisionPage,
    MessageIn,
    MuteIn,
    NewSession,
    Observation,
    ObservedEvent,
    OptOutIn,
    PauseIn,
    PauseState,
    Preview,
    PreviewIn,
    ReplayIn,
    ReplayReport,
    RouteFeedback,
    RouteFeedbackIn,
    RouteRequest,
    RouteResult,
    Run,
    RunBatch,
    RunHits,
    RunIn,
    RunPage,
    Session,
    SettingName,
    SettingPage,
    SignalBatch,
    SignalPage,
    SignalsStored,
    TickReport,
    Timeline,
    Tool,
    ToolOutcomeIn,
    ToolOutcomeResult,
    ToolPage,
    ToolPut,
    TuneIn,
    TuneReport,
    UndoResult,
    UserIn,
    UserMessageIn,
    UserPage,
    UserProfile,
    UserReply,
)

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

Json = Mapping[str, Any]
"""A request body given as a plain mapping: validated into its model before it is sent."""
Body = BaseModel | Json


def _query(**given: Any) -> dict[str, Any]:
    """Query parameters: the ones given (None: left to the server's default), times as ISO 8601."""
    return {k: v.isoformat() if isinstance(v, datetime) else v for k, v in given.items() if v is not None}


def _none(response: httpx.Response) -> None:
    """A 204: nothing to read."""


@dataclass(frozen=True, slots=True)
class Call(Generic[T]):
    """One request, and how its answer is read (``answer``)."""

    method: str
    path: str
    read: Callable[[httpx.Response], T]
    json: Any = None
    params: dict[str, Any] = field(default_factory=dict)
    content: bytes | None = None
    """A body that is not JSON (JSON Lines), sent with ``headers``."""
    headers: dict[str, str] = field(default_factory=dict)


def _reader(kind: Any) -> Callable[[httpx.Response], Any]:
    """How an answer of type ``kind`` is read (a model, or ``list[Model]``): one adapter per type."""
    adapter = _adapter(kind)
    return lambda response: adapter.validate_json(response.content)


_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def _adapter(kind: Any) -> TypeAdapter[Any]:
    if kind not in _ADAPTERS:
        _ADAPTERS[kind] = TypeAdapter(kind)
    return _ADAPTERS[kind]


def _body(model: type[M], value: Body) -> dict[str, Any]:
    """The body as JSON, validated into ``model`` first: bad input is ``InvalidInput`` (an
    ``InvalidRequest`` that was never sent), not pydantic's own error (a trial's agent missed it)."""
    try:
        checked = value if isinstance(value, model) else model.model_validate(value)
    except ValidationError as error:
        raise InvalidInput(model.__name__, error) from None
    return checked.model_dump(mode="json", exclude_unset=True)


def _seg(value: str) -> str:
    """A path segment, escaped (an id with a slash stays one segment)."""
    if not isinstance(value, str) or not value:
        raise InvalidInput("path", field="id", message=f"an id is a non-empty string, not {value!r}")
    return quote(value, safe="")


def request_of(call: Call[Any]) -> dict[str, Any]:
    """``httpx.Client.request``'s arguments for ``call`` (both clients send them as they are)."""
    return {
        "method": call.method,
        "url": call.path,
        "json": call.json,
        "params": call.params or None,
        "content": call.content,
        "headers": call.headers or None,
    }


def answer(call: Call[T], response: httpx.Response) -> T:
    """What ``response`` says to ``call``: its model, or the error it is (problem+json)."""
    if response.is_error:
        raise error_for(response)
    try:
        return call.read(response)
    except ValidationError as exc:
        wrong = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:3])
        raise UnexpectedAnswer(f"{call.method} {call.path}: the answer is not what it returns ({wrong})") from exc


# -- the executive (seed 000) and learning (seed 001) ---------------------------------------


def decide(event: EventRequest | Json) -> Call[EventDecision]:
    return Call("POST", "/v1/events/decide", _reader(EventDecision), _body(EventRequest, event))


def observe(event: ObservedEvent | Json) -> Call[Observation]:
    return Call("POST", "/v1/events/observe", _reader(Observation), _body(ObservedEvent, event))


def feedback(rating: Feedback | Json) -> Call[FeedbackReceipt]:
    return Call("POST", "/v1/feedback", _reader(FeedbackReceipt), _body(Feedback, rating))


def executive_report(*, since: datetime | None = None) -> Call[ExecutiveReport]:
    return Call("GET", "/v1/executive/report", _reader(ExecutiveReport), params=_query(since=since))


def create_heuristic(heuristic: HeuristicCreate | Json) -> Call[Heuristic]:
    return Call("POST", "/v1/heuristics", _reader(Heuristic), _body(HeuristicCreate, heuristic))


def get_heuristic(heuristic_id: str) -> Call[HeuristicDetail]:
    return Call("GET", f"/v1/heuristics/{_seg(heuristic_id)}", _reader(HeuristicDetail))


def add_heuristic_example(heuristic_id: str, example: ExampleIn | Json) -> Call[Example]:
    path = f"/v1/heuristics/{_seg(heuristic_id)}/examples"
    return Call("POST", path, _reader(Example), _body(ExampleIn, example))


def remove_heuristic_example(heuristic_id: str, example_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/heuristics/{_seg(heuristic_id)}/examples/{_seg(example_id)}", _none)


def list_heuristics(
    *, domain: str | None = None, origin: str | None = None, limit: int = 100, offset: int = 0
) -> Call[HeuristicPage]:
    params = _query(domain=domain, origin=origin, limit=limit, offset=offset)
    return Call("GET", "/v1/heuristics", _reader(HeuristicPage), params=params)


def match_heuristics(asked: MatchRequest | Json) -> Call[MatchResponse]:
    return Call("POST", "/v1/heuristics/match", _reader(MatchResponse), _body(MatchRequest, asked))


def update_heuristic(heuristic_id: str, change: HeuristicUpdate | Json) -> Call[Heuristic]:
    path = f"/v1/heuristics/{_seg(heuristic_id)}"
    return Call("PATCH", path, _reader(Heuristic), _body(HeuristicUpdate, change))


def delete_heuristic(heuristic_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/heuristics/{_seg(heuristic_id)}", _none)


def heuristic_evidence(heuristic_id: str, evidence: ConfidenceRequest | Json) -> Call[ConfidenceUpdate]:
    path = f"/v1/heuristics/{_seg(heuristic_id)}/confidence"
    return Call("POST", path, _reader(ConfidenceUpdate), _body(ConfidenceRequest, evidence))


def record_fire(heuristic_id: str, fire: FireRequest | Json) -> Call[FireRecord]:
    path = f"/v1/heuristics/{_seg(heuristic_id)}/fires"
    return Call("POST", path, _reader(FireRecord), _body(FireRequest, fire))


def heuristic_history(heuristic_id: str, *, limit: int = 1000, offset: int = 0) -> Call[HistoryPage]:
    path = f"/v1/heuristics/{_seg(heuristic_id)}/history"
    return Call("GET", path, _reader(HistoryPage), params=_query(limit=limit, offset=offset))


def import_heuristics(heuristics: Sequence[HeuristicCreate | Json], *, upsert: bool = False) -> Call[ImportResult]:
    """All or nothing, as JSON Lines (the server's import format); ``upsert``: an existing id is
    replaced (its history kept) rather than refused."""
    lines = "".join(json.dumps(_body(HeuristicCreate, h)) + "\n" for h in heuristics).encode()
    ndjson = {"Content-Type": "application/x-ndjson"}
    params = {"upsert": "true"} if upsert else {}
    return Call("POST", "/v1/heuristics/import", _reader(ImportResult), params=params, content=lines, headers=ndjson)


def export_heuristics() -> Call[list[HeuristicCreate]]:
    """Every heuristic of the tenant, as ``import_heuristics`` takes them back."""

    def read(response: httpx.Response) -> list[HeuristicCreate]:
        return [HeuristicCreate.model_validate_json(line) for line in response.text.splitlines() if line.strip()]

    return Call("GET", "/v1/heuristics/export", read)


def learning_channel() -> Call[ChannelReport]:
    return Call("GET", "/v1/learning/channel", _reader(ChannelReport))


# -- routing (seed 002) ------------------------------------------------------------------------


def create_session(session: NewSession | Json) -> Call[Session]:
    return Call("POST", "/v1/sessions", _reader(Session), _body(NewSession, session))


def get_session(session_id: str, *, turns: int = 20) -> Call[Session]:
    return Call("GET", f"/v1/sessions/{_seg(session_id)}", _reader(Session), params=_query(turns=turns))


def route(session_id: str, turn: RouteRequest | Json) -> Call[RouteResult]:
    path = f"/v1/sessions/{_seg(session_id)}/route"
    return Call("POST", path, _reader(RouteResult), _body(RouteRequest, turn))


def route_feedback(session_id: str, rating: RouteFeedbackIn | Json) -> Call[RouteFeedback]:
    path = f"/v1/sessions/{_seg(session_id)}/route-feedback"
    return Call("POST", path, _reader(RouteFeedback), _body(RouteFeedbackIn, rating))


def add_message(session_id: str, message: MessageIn | Json) -> Call[Session]:
    path = f"/v1/sessions/{_seg(session_id)}/messages"
    return Call("POST", path, _reader(Session), _body(MessageIn, message))


def handback(session_id: str) -> Call[Session]:
    return Call("POST", f"/v1/sessions/{_seg(session_id)}/handback", _reader(Session))


def tool_outcome(session_id: str, outcome: ToolOutcomeIn | Json) -> Call[ToolOutcomeResult]:
    path = f"/v1/sessions/{_seg(session_id)}/tool-outcomes"
    return Call("POST", path, _reader(ToolOutcomeResult), _body(ToolOutcomeIn, outcome))


def put_tool(name: str, tool: ToolPut | Json) -> Call[Tool]:
    return Call("PUT", f"/v1/tools/{_seg(name)}", _reader(Tool), _body(ToolPut, tool))


def list_tools(*, limit: int = 100, offset: int = 0) -> Call[ToolPage]:
    return Call("GET", "/v1/tools", _reader(ToolPage), params=_query(limit=limit, offset=offset))


def delete_tool(name: str) -> Call[None]:
    return Call("DELETE", f"/v1/tools/{_seg(name)}", _none)


def add_documents(documents: Sequence[DocumentIn | Json]) -> Call[DocumentsStored]:
    body = _body(DocumentBatch, {"documents": [_body(DocumentIn, document) for document in documents]})
    return Call("POST", "/v1/documents", _reader(DocumentsStored), body)


def submit_document_job(documents: Sequence[DocumentIn | Json]) -> Call[DocumentJob]:
    body = _body(DocumentBatch, {"documents": [_body(DocumentIn, document) for document in documents]})
    return Call("POST", "/v1/documents/jobs", _reader(DocumentJob), body)


def document_job(job_id: str) -> Call[DocumentJob]:
    return Call("GET", f"/v1/documents/jobs/{_seg(job_id)}", _reader(DocumentJob))


def cancel_document_job(job_id: str) -> Call[DocumentJob]:
    return Call("DELETE", f"/v1/documents/jobs/{_seg(job_id)}", _reader(DocumentJob))


def list_document_jobs(*, limit: int = 100, offset: int = 0) -> Call[DocumentJobPage]:
    return Call("GET", "/v1/documents/jobs", _reader(DocumentJobPage), params=_query(limit=limit, offset=offset))


def list_documents(*, limit: int = 100, offset: int = 0) -> Call[DocumentPage]:
    return Call("GET", "/v1/documents", _reader(DocumentPage), params=_query(limit=limit, offset=offset))


def delete_document(document_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/documents/{_seg(document_id)}", _none)


# -- admission (seed 003) ----------------------------------------------------------------------


def admit(run: RunIn | Json) -> Call[AdmissionResult]:
    return Call("POST", "/v1/runs", _reader(AdmissionResult), _body(RunIn, run))


def admit_batch(runs: RunBatch | Json) -> Call[BatchResult]:
    return Call("POST", "/v1/runs/batch", _reader(BatchResult), _body(RunBatch, runs))


def search_runs(
    query: str,
    *,
    agent_id: str = "default",
    user_id: str = "",
    k: int = 5,
    min_similarity: float = 0.0,
    collapse: bool = False,
) -> Call[RunHits]:
    params = _query(q=query, agent_id=agent_id, user_id=user_id, k=k, min_similarity=min_similarity, collapse=collapse)
    return Call("GET", "/v1/runs/search", _reader(RunHits), params=params)


def get_run(run_id: str) -> Call[Run]:
    return Call("GET", f"/v1/runs/{_seg(run_id)}", _reader(Run))


def list_runs(
    *,
    agent_id: str | None = None,
    user_id: str | None = None,
    status: str | None = None,
    task_id: str | None = None,
    limit: int = 100,
    offset: int = 0,
) -> Call[RunPage]:
    params = _query(agent_id=agent_id, user_id=user_id, status=status, task_id=task_id, limit=limit, offset=offset)
    return Call("GET", "/v1/runs", _reader(RunPage), params=params)


def delete_run(run_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/runs/{_seg(run_id)}", _none)


def undo_decision(decision_id: str) -> Call[UndoResult]:
    return Call("POST", f"/v1/memory-decisions/{_seg(decision_id)}/undo", _reader(UndoResult))


def admission_feedback(decision_id: str, rating: AdmissionFeedbackIn | Json) -> Call[AdmissionFeedback]:
    path = f"/v1/memory-decisions/{_seg(decision_id)}/feedback"
    return Call("POST", path, _reader(AdmissionFeedback), _body(AdmissionFeedbackIn, rating))


def memory_decisions(
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
) -> Call[MemoryDecisionPage]:
    params = _query(
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
    return Call("GET", "/v1/memory-decisions", _reader(MemoryDecisionPage), params=params)


# -- proactive (seed 004) ----------------------------------------------------------------------


def put_user(user_id: str, user: UserIn | Json) -> Call[UserProfile]:
    return Call("PUT", f"/v1/users/{_seg(user_id)}", _reader(UserProfile), _body(UserIn, user))


def get_user(user_id: str) -> Call[UserProfile]:
    return Call("GET", f"/v1/users/{_seg(user_id)}", _reader(UserProfile))


def list_users(*, limit: int = 100, offset: int = 0) -> Call[UserPage]:
    return Call("GET", "/v1/users", _reader(UserPage), params=_query(limit=limit, offset=offset))


def delete_user(user_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/users/{_seg(user_id)}", _none)


def add_signals(user_id: str, signals: SignalBatch | Json) -> Call[SignalsStored]:
    path = f"/v1/users/{_seg(user_id)}/signals"
    return Call("POST", path, _reader(SignalsStored), _body(SignalBatch, signals))


def list_signals(user_id: str, *, pending: bool | None = None, limit: int = 100, offset: int = 0) -> Call[SignalPage]:
    params = _query(pending=pending, limit=limit, offset=offset)
    return Call("GET", f"/v1/users/{_seg(user_id)}/signals", _reader(SignalPage), params=params)


def user_message(user_id: str, message: UserMessageIn | Json) -> Call[UserReply]:
    path = f"/v1/users/{_seg(user_id)}/messages"
    return Call("POST", path, _reader(UserReply), _body(UserMessageIn, message))


def opt_out(user_id: str, asked: OptOutIn | Json) -> Call[UserProfile]:
    path = f"/v1/users/{_seg(user_id)}/opt-out"
    return Call("POST", path, _reader(UserProfile), _body(OptOutIn, asked))


def opt_in(user_id: str, asked: OptOutIn | Json) -> Call[UserProfile]:
    path = f"/v1/users/{_seg(user_id)}/opt-in"
    return Call("POST", path, _reader(UserProfile), _body(OptOutIn, asked))


def mute(user_id: str, asked: MuteIn | Json) -> Call[UserProfile]:
    return Call("PUT", f"/v1/users/{_seg(user_id)}/mute", _reader(UserProfile), _body(MuteIn, asked))


def unmute(user_id: str) -> Call[UserProfile]:
    return Call("DELETE", f"/v1/users/{_seg(user_id)}/mute", _reader(UserProfile))


def get_pause() -> Call[PauseState]:
    return Call("GET", "/v1/proactive/pause", _reader(PauseState))


def set_pause(asked: PauseIn | Json) -> Call[PauseState]:
    return Call("PUT", "/v1/proactive/pause", _reader(PauseState), _body(PauseIn, asked))


def list_insights(user_id: str, *, fresh: bool = True, limit: int = 100, offset: int = 0) -> Call[InsightPage]:
    params = _query(fresh=fresh, limit=limit, offset=offset)
    return Call("GET", f"/v1/users/{_seg(user_id)}/insights", _reader(InsightPage), params=params)


def run_cycle(user_id: str) -> Call[CycleResult]:
    body = _body(CycleRequest, {"user_id": user_id})
    return Call("POST", "/v1/proactive/cycles", _reader(CycleResult), body)


def run_tick() -> Call[TickReport]:
    """Every due user's cycle now: one scheduler tick."""
    return Call("POST", "/v1/proactive/cycles", _reader(TickReport), _body(CycleRequest, {}))


def proactive_stats(*, days: int = 7) -> Call[dict[str, dict[str, int]]]:
    return Call("GET", "/v1/proactive/stats", _reader(dict[str, dict[str, int]]), params=_query(days=days))


def proactive_feedback(
    *,
    user_id: str | None = None,
    outcome: str | None = None,
    category: str | None = None,
    since: datetime | None = None,
    limit: int = 100,
    offset: int = 0,
) -> Call[FeedbackPage]:
    params = _query(user_id=user_id, outcome=outcome, category=category, since=since, limit=limit, offset=offset)
    return Call("GET", "/v1/proactive/feedback", _reader(FeedbackPage), params=params)


def preview(asked: PreviewIn | Json) -> Call[Preview]:
    return Call("POST", "/v1/proactive/preview", _reader(Preview), _body(PreviewIn, asked))


def timeline(user_id: str, *, days: float = 7, limit: int = 200) -> Call[Timeline]:
    params = _query(days=days, limit=limit)
    return Call("GET", f"/v1/users/{_seg(user_id)}/timeline", _reader(Timeline), params=params)


def feedback_summary(user_id: str) -> Call[FeedbackSummary]:
    return Call("GET", f"/v1/users/{_seg(user_id)}/feedback-summary", _reader(FeedbackSummary))


# -- the record, replay and tenant settings ------------------------------------------------------


def get_decision(decision_id: str) -> Call[DecisionRecord]:
    return Call("GET", f"/v1/decisions/{_seg(decision_id)}", _reader(DecisionRecord))


def list_decisions(
    *,
    kind: str | None = None,
    strategy: str | None = None,
    path: str | None = None,
    subject_id: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: int = 100,
    offset: int = 0,
) -> Call[DecisionPage]:
    params = _query(
        kind=kind, strategy=strategy, path=path, subject_id=subject_id, since=since, until=until, limit=limit,
        offset=offset,
    )  # fmt: skip
    return Call("GET", "/v1/decisions", _reader(DecisionPage), params=params)


def replay(asked: ReplayIn | Json) -> Call[ReplayReport]:
    return Call("POST", "/v1/replay", _reader(ReplayReport), _body(ReplayIn, asked))


def tune(asked: TuneIn | Json) -> Call[TuneReport]:
    return Call("POST", "/v1/replay/tune", _reader(TuneReport), _body(TuneIn, asked))


def list_settings(*, limit: int = 100, offset: int = 0) -> Call[SettingPage]:
    return Call("GET", "/v1/settings", _reader(SettingPage), params=_query(limit=limit, offset=offset))


def get_setting(name: SettingName) -> Call[AppliedSetting]:
    return Call("GET", f"/v1/settings/{_seg(name)}", _reader(AppliedSetting))


def apply_setting(name: SettingName, change: ApplyIn | Json) -> Call[AppliedSetting]:
    return Call("PUT", f"/v1/settings/{_seg(name)}", _reader(AppliedSetting), _body(ApplyIn, change))

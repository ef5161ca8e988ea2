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

from phronesis.client import models
from phronesis.client.errors import InvalidInput, UnexpectedAnswer, error_for

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
    ``InvalidRequest`` that was never sent), not pydantic's own error (which an agent can miss)."""
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


def decide(event: models.EventRequest | Json) -> Call[models.EventDecision]:
    return Call("POST", "/v1/events/decide", _reader(models.EventDecision), _body(models.EventRequest, event))


def observe(event: models.ObservedEvent | Json) -> Call[models.Observation]:
    return Call("POST", "/v1/events/observe", _reader(models.Observation), _body(models.ObservedEvent, event))


def feedback(rating: models.Feedback | Json) -> Call[models.FeedbackReceipt]:
    return Call("POST", "/v1/feedback", _reader(models.FeedbackReceipt), _body(models.Feedback, rating))


def executive_report(*, since: datetime | None = None) -> Call[models.ExecutiveReport]:
    return Call("GET", "/v1/executive/report", _reader(models.ExecutiveReport), params=_query(since=since))


def create_heuristic(heuristic: models.HeuristicCreate | Json) -> Call[models.HeuristicCreated]:
    return Call("POST", "/v1/heuristics", _reader(models.HeuristicCreated), _body(models.HeuristicCreate, heuristic))


def get_heuristic(heuristic_id: str) -> Call[models.HeuristicDetail]:
    return Call("GET", f"/v1/heuristics/{_seg(heuristic_id)}", _reader(models.HeuristicDetail))


def add_heuristic_example(heuristic_id: str, example: models.ExampleIn | Json) -> Call[models.Example]:
    path = f"/v1/heuristics/{_seg(heuristic_id)}/examples"
    return Call("POST", path, _reader(models.Example), _body(models.ExampleIn, example))


def remove_heuristic_example(heuristic_id: str, example_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/heuristics/{_seg(heuristic_id)}/examples/{_seg(example_id)}", _none)


def list_heuristics(
    *, domain: str | None = None, origin: str | None = None, limit: int = 100, offset: int = 0
) -> Call[models.HeuristicPage]:
    params = _query(domain=domain, origin=origin, limit=limit, offset=offset)
    return Call("GET", "/v1/heuristics", _reader(models.HeuristicPage), params=params)


def match_heuristics(asked: models.MatchRequest | Json) -> Call[models.MatchResponse]:
    return Call("POST", "/v1/heuristics/match", _reader(models.MatchResponse), _body(models.MatchRequest, asked))


def update_heuristic(heuristic_id: str, change: models.HeuristicUpdate | Json) -> Call[models.Heuristic]:
    path = f"/v1/heuristics/{_seg(heuristic_id)}"
    return Call("PATCH", path, _reader(models.Heuristic), _body(models.HeuristicUpdate, change))


def delete_heuristic(heuristic_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/heuristics/{_seg(heuristic_id)}", _none)


def heuristic_evidence(heuristic_id: str, evidence: models.ConfidenceRequest | Json) -> Call[models.ConfidenceUpdate]:
    path = f"/v1/heuristics/{_seg(heuristic_id)}/confidence"
    return Call("POST", path, _reader(models.ConfidenceUpdate), _body(models.ConfidenceRequest, evidence))


def record_fire(heuristic_id: str, fire: models.FireRequest | Json) -> Call[models.FireRecord]:
    path = f"/v1/heuristics/{_seg(heuristic_id)}/fires"
    return Call("POST", path, _reader(models.FireRecord), _body(models.FireRequest, fire))


def heuristic_history(heuristic_id: str, *, limit: int = 1000, offset: int = 0) -> Call[models.HistoryPage]:
    path = f"/v1/heuristics/{_seg(heuristic_id)}/history"
    return Call("GET", path, _reader(models.HistoryPage), params=_query(limit=limit, offset=offset))


def import_heuristics(
    heuristics: Sequence[models.HeuristicCreate | Json], *, upsert: bool = False
) -> Call[models.ImportResult]:
    """All or nothing, as JSON Lines (the server's import format); ``upsert``: an existing id is
    replaced (its history kept) rather than refused."""
    lines = "".join(json.dumps(_body(models.HeuristicCreate, h)) + "\n" for h in heuristics).encode()
    ndjson = {"Content-Type": "application/x-ndjson"}
    params = {"upsert": "true"} if upsert else {}
    return Call(
        "POST", "/v1/heuristics/import", _reader(models.ImportResult), params=params, content=lines, headers=ndjson
    )


def export_heuristics() -> Call[list[models.HeuristicCreate]]:
    """Every heuristic of the tenant, as ``import_heuristics`` takes them back."""

    def read(response: httpx.Response) -> list[models.HeuristicCreate]:
        return [models.HeuristicCreate.model_validate_json(line) for line in response.text.splitlines() if line.strip()]

    return Call("GET", "/v1/heuristics/export", read)


def learning_channel() -> Call[models.ChannelReport]:
    return Call("GET", "/v1/learning/channel", _reader(models.ChannelReport))


# -- routing (seed 002) ------------------------------------------------------------------------


def create_session(session: models.NewSession | Json) -> Call[models.Session]:
    return Call("POST", "/v1/sessions", _reader(models.Session), _body(models.NewSession, session))


def get_session(session_id: str, *, turns: int = 20) -> Call[models.Session]:
    return Call("GET", f"/v1/sessions/{_seg(session_id)}", _reader(models.Session), params=_query(turns=turns))


def route(session_id: str, turn: models.RouteRequest | Json) -> Call[models.RouteResult]:
    path = f"/v1/sessions/{_seg(session_id)}/route"
    return Call("POST", path, _reader(models.RouteResult), _body(models.RouteRequest, turn))


def route_feedback(session_id: str, rating: models.RouteFeedbackIn | Json) -> Call[models.RouteFeedback]:
    path = f"/v1/sessions/{_seg(session_id)}/route-feedback"
    return Call("POST", path, _reader(models.RouteFeedback), _body(models.RouteFeedbackIn, rating))


def add_message(session_id: str, message: models.MessageIn | Json) -> Call[models.Session]:
    path = f"/v1/sessions/{_seg(session_id)}/messages"
    return Call("POST", path, _reader(models.Session), _body(models.MessageIn, message))


def handback(session_id: str) -> Call[models.Session]:
    return Call("POST", f"/v1/sessions/{_seg(session_id)}/handback", _reader(models.Session))


def tool_outcome(session_id: str, outcome: models.ToolOutcomeIn | Json) -> Call[models.ToolOutcomeResult]:
    path = f"/v1/sessions/{_seg(session_id)}/tool-outcomes"
    return Call("POST", path, _reader(models.ToolOutcomeResult), _body(models.ToolOutcomeIn, outcome))


def put_tool(name: str, tool: models.ToolPut | Json) -> Call[models.Tool]:
    return Call("PUT", f"/v1/tools/{_seg(name)}", _reader(models.Tool), _body(models.ToolPut, tool))


def list_tools(*, limit: int = 100, offset: int = 0) -> Call[models.ToolPage]:
    return Call("GET", "/v1/tools", _reader(models.ToolPage), params=_query(limit=limit, offset=offset))


def delete_tool(name: str) -> Call[None]:
    return Call("DELETE", f"/v1/tools/{_seg(name)}", _none)


Documents = Sequence[models.DocumentIn | Json] | models.DocumentBatch | Json
"""Documents as a list, or as the API's own body (``{"documents": [...]}``)."""


def _documents(documents: Documents) -> Body:
    """The API's body for a list of documents; the body itself where it was given as the API documents it."""
    if isinstance(documents, models.DocumentBatch | Mapping):
        return documents
    return {"documents": [_body(models.DocumentIn, document) for document in documents]}


def add_documents(documents: Documents) -> Call[models.DocumentsStored]:
    body = _body(models.DocumentBatch, _documents(documents))
    return Call("POST", "/v1/documents", _reader(models.DocumentsStored), body)


def submit_document_job(documents: Documents) -> Call[models.DocumentJob]:
    body = _body(models.DocumentBatch, _documents(documents))
    return Call("POST", "/v1/documents/jobs", _reader(models.DocumentJob), body)


def document_job(job_id: str) -> Call[models.DocumentJob]:
    return Call("GET", f"/v1/documents/jobs/{_seg(job_id)}", _reader(models.DocumentJob))


def cancel_document_job(job_id: str) -> Call[models.DocumentJob]:
    return Call("DELETE", f"/v1/documents/jobs/{_seg(job_id)}", _reader(models.DocumentJob))


def list_document_jobs(*, limit: int = 100, offset: int = 0) -> Call[models.DocumentJobPage]:
    return Call("GET", "/v1/documents/jobs", _reader(models.DocumentJobPage), params=_query(limit=limit, offset=offset))


def list_documents(*, limit: int = 100, offset: int = 0) -> Call[models.DocumentPage]:
    return Call("GET", "/v1/documents", _reader(models.DocumentPage), params=_query(limit=limit, offset=offset))


def put_document(document_id: str, document: models.DocumentIn | Json) -> Call[models.DocumentPut]:
    """Add or replace one document in one step (``created``: it was new; the server answers 201, else 200)."""
    path = f"/v1/documents/{_seg(document_id)}"
    return Call("PUT", path, _reader(models.DocumentPut), _body(models.DocumentIn, document))


def delete_document(document_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/documents/{_seg(document_id)}", _none)


# -- admission (seed 003) ----------------------------------------------------------------------


def admit(run: models.RunIn | Json) -> Call[models.AdmissionResult]:
    return Call("POST", "/v1/runs", _reader(models.AdmissionResult), _body(models.RunIn, run))


def admit_batch(runs: models.RunBatch | Json) -> Call[models.BatchResult]:
    return Call("POST", "/v1/runs/batch", _reader(models.BatchResult), _body(models.RunBatch, runs))


def search_runs(
    query: str,
    *,
    agent_id: str = "default",
    user_id: str = "",
    k: int = 5,
    min_similarity: float = 0.0,
    collapse: bool = False,
) -> Call[models.RunHits]:
    params = _query(q=query, agent_id=agent_id, user_id=user_id, k=k, min_similarity=min_similarity, collapse=collapse)
    return Call("GET", "/v1/runs/search", _reader(models.RunHits), params=params)


def get_run(run_id: str) -> Call[models.Run]:
    return Call("GET", f"/v1/runs/{_seg(run_id)}", _reader(models.Run))


def list_runs(
    *,
    agent_id: str | None = None,
    user_id: str | None = None,
    status: str | None = None,
    task_id: str | None = None,
    limit: int = 100,
    offset: int = 0,
) -> Call[models.RunPage]:
    params = _query(agent_id=agent_id, user_id=user_id, status=status, task_id=task_id, limit=limit, offset=offset)
    return Call("GET", "/v1/runs", _reader(models.RunPage), params=params)


def delete_run(run_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/runs/{_seg(run_id)}", _none)


def undo_decision(decision_id: str) -> Call[models.UndoResult]:
    return Call("POST", f"/v1/memory-decisions/{_seg(decision_id)}/undo", _reader(models.UndoResult))


def admission_feedback(decision_id: str, rating: models.AdmissionFeedbackIn | Json) -> Call[models.AdmissionFeedback]:
    path = f"/v1/memory-decisions/{_seg(decision_id)}/feedback"
    return Call("POST", path, _reader(models.AdmissionFeedback), _body(models.AdmissionFeedbackIn, rating))


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
) -> Call[models.MemoryDecisionPage]:
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
    return Call("GET", "/v1/memory-decisions", _reader(models.MemoryDecisionPage), params=params)


# -- proactive (seed 004) ----------------------------------------------------------------------


def put_user(user_id: str, user: models.UserIn | Json) -> Call[models.UserProfile]:
    return Call("PUT", f"/v1/users/{_seg(user_id)}", _reader(models.UserProfile), _body(models.UserIn, user))


def get_user(user_id: str) -> Call[models.UserProfile]:
    return Call("GET", f"/v1/users/{_seg(user_id)}", _reader(models.UserProfile))


def list_users(*, limit: int = 100, offset: int = 0) -> Call[models.UserPage]:
    return Call("GET", "/v1/users", _reader(models.UserPage), params=_query(limit=limit, offset=offset))


def delete_user(user_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/users/{_seg(user_id)}", _none)


def add_signals(user_id: str, signals: models.SignalBatch | Json) -> Call[models.SignalsStored]:
    path = f"/v1/users/{_seg(user_id)}/signals"
    return Call("POST", path, _reader(models.SignalsStored), _body(models.SignalBatch, signals))


def list_signals(
    user_id: str, *, pending: bool | None = None, limit: int = 100, offset: int = 0
) -> Call[models.SignalPage]:
    params = _query(pending=pending, limit=limit, offset=offset)
    return Call("GET", f"/v1/users/{_seg(user_id)}/signals", _reader(models.SignalPage), params=params)


def user_message(user_id: str, message: models.UserMessageIn | Json) -> Call[models.UserReply]:
    path = f"/v1/users/{_seg(user_id)}/messages"
    return Call("POST", path, _reader(models.UserReply), _body(models.UserMessageIn, message))


def opt_out(user_id: str, asked: models.OptOutIn | Json) -> Call[models.UserProfile]:
    path = f"/v1/users/{_seg(user_id)}/opt-out"
    return Call("POST", path, _reader(models.UserProfile), _body(models.OptOutIn, asked))


def opt_in(user_id: str, asked: models.OptOutIn | Json) -> Call[models.UserProfile]:
    path = f"/v1/users/{_seg(user_id)}/opt-in"
    return Call("POST", path, _reader(models.UserProfile), _body(models.OptOutIn, asked))


def mute(user_id: str, asked: models.MuteIn | Json) -> Call[models.UserProfile]:
    return Call("PUT", f"/v1/users/{_seg(user_id)}/mute", _reader(models.UserProfile), _body(models.MuteIn, asked))


def unmute(user_id: str) -> Call[models.UserProfile]:
    return Call("DELETE", f"/v1/users/{_seg(user_id)}/mute", _reader(models.UserProfile))


def get_pause() -> Call[models.PauseState]:
    return Call("GET", "/v1/proactive/pause", _reader(models.PauseState))


def set_pause(asked: models.PauseIn | Json) -> Call[models.PauseState]:
    return Call("PUT", "/v1/proactive/pause", _reader(models.PauseState), _body(models.PauseIn, asked))


def list_insights(user_id: str, *, fresh: bool = True, limit: int = 100, offset: int = 0) -> Call[models.InsightPage]:
    params = _query(fresh=fresh, limit=limit, offset=offset)
    return Call("GET", f"/v1/users/{_seg(user_id)}/insights", _reader(models.InsightPage), params=params)


def run_cycle(user_id: str | models.CycleRequest | Json) -> Call[models.CycleResult]:
    """``user_id``, or the API's own body (``{"user_id": ...}``)."""
    body = _body(models.CycleRequest, {"user_id": user_id} if isinstance(user_id, str) else user_id)
    return Call("POST", "/v1/proactive/cycles", _reader(models.CycleResult), body)


def run_tick() -> Call[models.TickReport]:
    """Every due user's cycle now: one scheduler tick."""
    return Call("POST", "/v1/proactive/cycles", _reader(models.TickReport), _body(models.CycleRequest, {}))


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
) -> Call[models.FeedbackPage]:
    params = _query(user_id=user_id, outcome=outcome, category=category, since=since, limit=limit, offset=offset)
    return Call("GET", "/v1/proactive/feedback", _reader(models.FeedbackPage), params=params)


def preview(asked: models.PreviewIn | Json) -> Call[models.Preview]:
    return Call("POST", "/v1/proactive/preview", _reader(models.Preview), _body(models.PreviewIn, asked))


def timeline(user_id: str, *, days: float = 7, limit: int = 200) -> Call[models.Timeline]:
    params = _query(days=days, limit=limit)
    return Call("GET", f"/v1/users/{_seg(user_id)}/timeline", _reader(models.Timeline), params=params)


def feedback_summary(user_id: str) -> Call[models.FeedbackSummary]:
    return Call("GET", f"/v1/users/{_seg(user_id)}/feedback-summary", _reader(models.FeedbackSummary))


# -- the record, replay and tenant settings ------------------------------------------------------


def get_decision(decision_id: str) -> Call[models.DecisionRecord]:
    return Call("GET", f"/v1/decisions/{_seg(decision_id)}", _reader(models.DecisionRecord))


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
) -> Call[models.DecisionPage]:
    params = _query(
        kind=kind, strategy=strategy, path=path, subject_id=subject_id, since=since, until=until, limit=limit,
        offset=offset,
    )  # fmt: skip
    return Call("GET", "/v1/decisions", _reader(models.DecisionPage), params=params)


def replay(asked: models.ReplayIn | Json) -> Call[models.ReplayReport]:
    return Call("POST", "/v1/replay", _reader(models.ReplayReport), _body(models.ReplayIn, asked))


def tune(asked: models.TuneIn | Json) -> Call[models.TuneReport]:
    return Call("POST", "/v1/replay/tune", _reader(models.TuneReport), _body(models.TuneIn, asked))


def list_settings(*, limit: int = 100, offset: int = 0) -> Call[models.SettingPage]:
    return Call("GET", "/v1/settings", _reader(models.SettingPage), params=_query(limit=limit, offset=offset))


def get_setting(name: models.SettingName) -> Call[models.AppliedSetting]:
    return Call("GET", f"/v1/settings/{_seg(name)}", _reader(models.AppliedSetting))


def apply_setting(name: models.SettingName, change: models.ApplyIn | Json) -> Call[models.AppliedSetting]:
    return Call("PUT", f"/v1/settings/{_seg(name)}", _reader(models.AppliedSetting), _body(models.ApplyIn, change))

"""Every operation the clients make, written once: its method, path, body and the model its
answer is read into. ``Client`` and ``AsyncClient`` only send these (``Call``), so the two can
never disagree on what an operation is.

A request body may be given as its model or as a plain mapping; a mapping is validated here,
before anything is sent, so bad input fails as the server would fail it, without a round trip."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel, TypeAdapter

from phronesis.admission.models import AdmissionResult, RunIn, SearchHit
from phronesis.audit.models import DecisionRecord
from phronesis.executive.events import EventDecision, EventRequest
from phronesis.feedback.models import Feedback, FeedbackReceipt
from phronesis.heuristics.models import Heuristic, HeuristicCreate
from phronesis.proactive.models import Preview, PreviewIn, UserIn, UserProfile
from phronesis.replay.models import ReplayIn, ReplayReport
from phronesis.replay.tune import TuneIn, TuneReport
from phronesis.routing.models import RouteRequest, RouteResult
from phronesis.routing.route_feedback import RouteFeedback, RouteFeedbackIn
from phronesis.routing.sessions import NewSession, Session
from phronesis.tenant_settings import AppliedSetting, ApplyIn, SettingName

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

Body = BaseModel | Mapping[str, Any]
"""A request body: its model, or a mapping validated into it."""


@dataclass(frozen=True, slots=True)
class Call(Generic[T]):
    """One request, and how its answer is read."""

    method: str
    path: str
    read: Callable[[httpx.Response], T]
    json: Any = None
    params: dict[str, Any] = field(default_factory=dict)


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
    checked = value if isinstance(value, model) else model.model_validate(value)
    return checked.model_dump(mode="json", exclude_unset=True)


def _seg(value: str) -> str:
    """A path segment, escaped (an id with a slash stays one segment)."""
    return quote(value, safe="")


# -- the executive (seed 000) and learning (seed 001) ---------------------------------------


def decide(event: EventRequest | Mapping[str, Any]) -> Call[EventDecision]:
    return Call("POST", "/v1/events/decide", _reader(EventDecision), _body(EventRequest, event))


def feedback(rating: Feedback | Mapping[str, Any]) -> Call[FeedbackReceipt]:
    return Call("POST", "/v1/feedback", _reader(FeedbackReceipt), _body(Feedback, rating))


def create_heuristic(heuristic: HeuristicCreate | Mapping[str, Any]) -> Call[Heuristic]:
    return Call("POST", "/v1/heuristics", _reader(Heuristic), _body(HeuristicCreate, heuristic))


def get_heuristic(heuristic_id: str) -> Call[Heuristic]:
    return Call("GET", f"/v1/heuristics/{_seg(heuristic_id)}", _reader(Heuristic))


# -- routing (seed 002) ------------------------------------------------------------------------


def create_session(session: NewSession | Mapping[str, Any]) -> Call[Session]:
    return Call("POST", "/v1/sessions", _reader(Session), _body(NewSession, session))


def get_session(session_id: str) -> Call[Session]:
    return Call("GET", f"/v1/sessions/{_seg(session_id)}", _reader(Session))


def route(session_id: str, turn: RouteRequest | Mapping[str, Any]) -> Call[RouteResult]:
    path = f"/v1/sessions/{_seg(session_id)}/route"
    return Call("POST", path, _reader(RouteResult), _body(RouteRequest, turn))


def route_feedback(session_id: str, rating: RouteFeedbackIn | Mapping[str, Any]) -> Call[RouteFeedback]:
    path = f"/v1/sessions/{_seg(session_id)}/route-feedback"
    return Call("POST", path, _reader(RouteFeedback), _body(RouteFeedbackIn, rating))


# -- admission (seed 003) ----------------------------------------------------------------------


def admit(run: RunIn | Mapping[str, Any]) -> Call[AdmissionResult]:
    return Call("POST", "/v1/runs", _reader(AdmissionResult), _body(RunIn, run))


def search_runs(query: str, *, agent_id: str = "default", user_id: str = "", k: int = 5) -> Call[list[SearchHit]]:
    params = {"q": query, "agent_id": agent_id, "user_id": user_id, "k": k}
    return Call("GET", "/v1/runs/search", _reader(list[SearchHit]), params=params)


# -- proactive (seed 004) ----------------------------------------------------------------------


def put_user(user_id: str, user: UserIn | Mapping[str, Any]) -> Call[UserProfile]:
    return Call("PUT", f"/v1/users/{_seg(user_id)}", _reader(UserProfile), _body(UserIn, user))


def preview(asked: PreviewIn | Mapping[str, Any]) -> Call[Preview]:
    return Call("POST", "/v1/proactive/preview", _reader(Preview), _body(PreviewIn, asked))


# -- the record, replay and tenant settings ------------------------------------------------------


def get_decision(decision_id: str) -> Call[DecisionRecord]:
    return Call("GET", f"/v1/decisions/{_seg(decision_id)}", _reader(DecisionRecord))


def replay(asked: ReplayIn | Mapping[str, Any]) -> Call[ReplayReport]:
    return Call("POST", "/v1/replay", _reader(ReplayReport), _body(ReplayIn, asked))


def tune(asked: TuneIn | Mapping[str, Any]) -> Call[TuneReport]:
    return Call("POST", "/v1/replay/tune", _reader(TuneReport), _body(TuneIn, asked))


def get_setting(name: SettingName) -> Call[AppliedSetting]:
    return Call("GET", f"/v1/settings/{_seg(name)}", _reader(AppliedSetting))


def apply_setting(name: SettingName, change: ApplyIn | Mapping[str, Any]) -> Call[AppliedSetting]:
    return Call("PUT", f"/v1/settings/{_seg(name)}", _reader(AppliedSetting), _body(ApplyIn, change))

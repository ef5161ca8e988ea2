"""The blocking client: ``Client(base_url, api_key=…)``, one namespace per decision point.

    with Client("http://127.0.0.1:8000", api_key="sk-…") as phronesis:
        decision = phronesis.executive.decide({"text": "the greenhouse door is open", "source": "home"})

Pass ``transport=httpx.MockTransport(handler)`` to test your agent without a server."""

from __future__ import annotations

import time
from collections.abc import Mapping
from types import TracebackType
from typing import Any, TypeVar

import httpx
from pydantic import ValidationError

from phronesis.admission.models import AdmissionResult, RunIn, SearchHit
from phronesis.audit.models import DecisionRecord
from phronesis.client import calls
from phronesis.client.calls import Call
from phronesis.client.config import DEFAULT_TIMEOUT, Connection
from phronesis.client.errors import TransportFailed, UnexpectedAnswer, error_for, retry_after
from phronesis.client.retry import NOT_SENT, RetryPolicy
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

__all__ = ["Client"]

T = TypeVar("T")
Json = Mapping[str, Any]


class Client:
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
        self.routing = _Routing(self)
        self.admission = _Admission(self)
        self.proactive = _Proactive(self)
        self.decisions = _Decisions(self)
        self.replay = _Replay(self)
        self.settings = _Settings(self)

    def send(self, call: Call[T]) -> T:
        """Send one operation (``calls``), retried as ``retry`` says; its answer, or the error."""
        for attempt in range(1, self.retry.attempts + 1):
            last = attempt == self.retry.attempts
            try:
                response = self._http.request(call.method, call.path, json=call.json, params=call.params or None)
            except NOT_SENT as exc:
                if last:
                    raise TransportFailed(f"{call.method} {call.path}: {exc}") from exc
                time.sleep(self.retry.delay(attempt, None))
                continue
            except httpx.TransportError as exc:
                raise TransportFailed(f"{call.method} {call.path}: {exc}") from exc
            if response.status_code in self.retry.statuses and not last:
                time.sleep(self.retry.delay(attempt, retry_after(response)))
                continue
            if response.is_error:
                raise error_for(response)
            try:
                return call.read(response)
            except ValidationError as exc:
                raise UnexpectedAnswer(f"{call.method} {call.path}: the answer is not what it returns") from exc
        raise AssertionError("unreachable: the last attempt returns or raises")

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()


class _Executive:
    """Seed 000 and 001: decide on an event, rate the decision, the heuristics behind it."""

    def __init__(self, client: Client) -> None:
        self._c = client

    def decide(self, event: EventRequest | Json) -> EventDecision:
        return self._c.send(calls.decide(event))

    def feedback(self, rating: Feedback | Json) -> FeedbackReceipt:
        return self._c.send(calls.feedback(rating))

    def create_heuristic(self, heuristic: HeuristicCreate | Json) -> Heuristic:
        return self._c.send(calls.create_heuristic(heuristic))

    def heuristic(self, heuristic_id: str) -> Heuristic:
        return self._c.send(calls.get_heuristic(heuristic_id))


class _Routing:
    """Seed 002: a conversation's turns routed, rated."""

    def __init__(self, client: Client) -> None:
        self._c = client

    def create_session(self, session: NewSession | Json | None = None) -> Session:
        return self._c.send(calls.create_session(session or {}))

    def session(self, session_id: str) -> Session:
        return self._c.send(calls.get_session(session_id))

    def route(self, session_id: str, turn: RouteRequest | Json) -> RouteResult:
        return self._c.send(calls.route(session_id, turn))

    def feedback(self, session_id: str, rating: RouteFeedbackIn | Json) -> RouteFeedback:
        return self._c.send(calls.route_feedback(session_id, rating))


class _Admission:
    """Seed 003: a finished run admitted to memory, or not; memory searched."""

    def __init__(self, client: Client) -> None:
        self._c = client

    def admit(self, run: RunIn | Json) -> AdmissionResult:
        return self._c.send(calls.admit(run))

    def search(self, query: str, *, agent_id: str = "default", user_id: str = "", k: int = 5) -> list[SearchHit]:
        return self._c.send(calls.search_runs(query, agent_id=agent_id, user_id=user_id, k=k))


class _Proactive:
    """Seed 004: a user's profile, and what their next cycle would decide."""

    def __init__(self, client: Client) -> None:
        self._c = client

    def put_user(self, user_id: str, user: UserIn | Json) -> UserProfile:
        return self._c.send(calls.put_user(user_id, user))

    def preview(self, asked: PreviewIn | Json) -> Preview:
        return self._c.send(calls.preview(asked))


class _Decisions:
    def __init__(self, client: Client) -> None:
        self._c = client

    def get(self, decision_id: str) -> DecisionRecord:
        return self._c.send(calls.get_decision(decision_id))


class _Replay:
    def __init__(self, client: Client) -> None:
        self._c = client

    def run(self, asked: ReplayIn | Json) -> ReplayReport:
        return self._c.send(calls.replay(asked))

    def tune(self, asked: TuneIn | Json) -> TuneReport:
        return self._c.send(calls.tune(asked))


class _Settings:
    def __init__(self, client: Client) -> None:
        self._c = client

    def get(self, name: SettingName) -> AppliedSetting:
        return self._c.send(calls.get_setting(name))

    def apply(self, name: SettingName, change: ApplyIn | Json) -> AppliedSetting:
        return self._c.send(calls.apply_setting(name, change))

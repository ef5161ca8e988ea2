"""The asyncio client: ``AsyncClient(base_url, api_key=…)``, the same operations as ``Client``
(``calls``), awaited; nothing blocks the event loop, retries' waits included.

    async with AsyncClient("http://127.0.0.1:8000", api_key="sk-…") as phronesis:
        decision = await phronesis.executive.decide({"text": "the greenhouse door is open", "source": "home"})

Pass ``transport=httpx.MockTransport(handler)`` (an async handler) to test without a server."""

from __future__ import annotations

import asyncio
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

__all__ = ["AsyncClient"]

T = TypeVar("T")
Json = Mapping[str, Any]


class AsyncClient:
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
        self.routing = _Routing(self)
        self.admission = _Admission(self)
        self.proactive = _Proactive(self)
        self.decisions = _Decisions(self)
        self.replay = _Replay(self)
        self.settings = _Settings(self)

    async def send(self, call: Call[T]) -> T:
        """Send one operation (``calls``), retried as ``retry`` says; its answer, or the error."""
        for attempt in range(1, self.retry.attempts + 1):
            last = attempt == self.retry.attempts
            try:
                response = await self._http.request(call.method, call.path, json=call.json, params=call.params or None)
            except NOT_SENT as exc:
                if last:
                    raise TransportFailed(f"{call.method} {call.path}: {exc}") from exc
                await asyncio.sleep(self.retry.delay(attempt, None))
                continue
            except httpx.TransportError as exc:
                raise TransportFailed(f"{call.method} {call.path}: {exc}") from exc
            if response.status_code in self.retry.statuses and not last:
                await asyncio.sleep(self.retry.delay(attempt, retry_after(response)))
                continue
            if response.is_error:
                raise error_for(response)
            try:
                return call.read(response)
            except ValidationError as exc:
                raise UnexpectedAnswer(f"{call.method} {call.path}: the answer is not what it returns") from exc
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def close(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        await self.close()


class _Executive:
    """Seed 000 and 001: decide on an event, rate the decision, the heuristics behind it."""

    def __init__(self, client: AsyncClient) -> None:
        self._c = client

    async def decide(self, event: EventRequest | Json) -> EventDecision:
        return await self._c.send(calls.decide(event))

    async def feedback(self, rating: Feedback | Json) -> FeedbackReceipt:
        return await self._c.send(calls.feedback(rating))

    async def create_heuristic(self, heuristic: HeuristicCreate | Json) -> Heuristic:
        return await self._c.send(calls.create_heuristic(heuristic))

    async def heuristic(self, heuristic_id: str) -> Heuristic:
        return await self._c.send(calls.get_heuristic(heuristic_id))


class _Routing:
    """Seed 002: a conversation's turns routed, rated."""

    def __init__(self, client: AsyncClient) -> None:
        self._c = client

    async def create_session(self, session: NewSession | Json | None = None) -> Session:
        return await self._c.send(calls.create_session(session or {}))

    async def session(self, session_id: str) -> Session:
        return await self._c.send(calls.get_session(session_id))

    async def route(self, session_id: str, turn: RouteRequest | Json) -> RouteResult:
        return await self._c.send(calls.route(session_id, turn))

    async def feedback(self, session_id: str, rating: RouteFeedbackIn | Json) -> RouteFeedback:
        return await self._c.send(calls.route_feedback(session_id, rating))


class _Admission:
    """Seed 003: a finished run admitted to memory, or not; memory searched."""

    def __init__(self, client: AsyncClient) -> None:
        self._c = client

    async def admit(self, run: RunIn | Json) -> AdmissionResult:
        return await self._c.send(calls.admit(run))

    async def search(self, query: str, *, agent_id: str = "default", user_id: str = "", k: int = 5) -> list[SearchHit]:
        return await self._c.send(calls.search_runs(query, agent_id=agent_id, user_id=user_id, k=k))


class _Proactive:
    """Seed 004: a user's profile, and what their next cycle would decide."""

    def __init__(self, client: AsyncClient) -> None:
        self._c = client

    async def put_user(self, user_id: str, user: UserIn | Json) -> UserProfile:
        return await self._c.send(calls.put_user(user_id, user))

    async def preview(self, asked: PreviewIn | Json) -> Preview:
        return await self._c.send(calls.preview(asked))


class _Decisions:
    def __init__(self, client: AsyncClient) -> None:
        self._c = client

    async def get(self, decision_id: str) -> DecisionRecord:
        return await self._c.send(calls.get_decision(decision_id))


class _Replay:
    def __init__(self, client: AsyncClient) -> None:
        self._c = client

    async def run(self, asked: ReplayIn | Json) -> ReplayReport:
        return await self._c.send(calls.replay(asked))

    async def tune(self, asked: TuneIn | Json) -> TuneReport:
        return await self._c.send(calls.tune(asked))


class _Settings:
    def __init__(self, client: AsyncClient) -> None:
        self._c = client

    async def get(self, name: SettingName) -> AppliedSetting:
        return await self._c.send(calls.get_setting(name))

    async def apply(self, name: SettingName, change: ApplyIn | Json) -> AppliedSetting:
        return await self._c.send(calls.apply_setting(name, change))

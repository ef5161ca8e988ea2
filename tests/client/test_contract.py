"""What both clients promise, over ``httpx.MockTransport``: requests as the server expects them,
answers read into the server's models, problem+json as typed errors, retries on 429 and 503 that
honour ``Retry-After``, and no retry of a request that may have been acted on."""

from __future__ import annotations

import json

import httpx
import pytest

from phronesis.client import (
    Conflict,
    InvalidInput,
    InvalidRequest,
    NotFound,
    QuotaExceeded,
    RetryPolicy,
    ServerError,
    TransportFailed,
    Unauthorized,
    Unavailable,
    UnexpectedAnswer,
)
from phronesis.client.models import EventDecision, RouteResult
from tests.client.conftest import Harness
from tests.doc_blocks import MOCK_TRANSPORT, run_doc_python

DECIDED = {
    "accepted": True,
    "response_id": "r-1",
    "response_text": "close the greenhouse door",
    "predicted_success": 0.8,
    "prediction_confidence": 0.8,
    "prompt_text": "",
    "decision_path": "heuristic",
    "matched_heuristic_id": "h-1",
    "event_id": "e-1",
    "strategy": "heuristic_first",
}


def _problem(status: int, field: str | None = None, **headers: str) -> httpx.Response:
    body: dict[str, object] = {"type": "about:blank", "title": "Problem", "status": status, "detail": "it went wrong"}
    if field is not None:
        body |= {"field": field, "errors": [{"field": field, "in": "body", "message": "is required"}]}
    return httpx.Response(status, json=body, headers={"content-type": "application/problem+json", **headers})


async def test_a_decision_is_sent_with_the_key_and_read_into_the_servers_model(harness: Harness) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=DECIDED)

    decided = await harness.run(
        handler, lambda c: c.executive.decide({"text": "the door is open", "source": "home"}), api_key="sk-1"
    )
    assert isinstance(decided, EventDecision) and decided.response_text == "close the greenhouse door"
    (request,) = seen
    assert (request.method, request.url.path) == ("POST", "/v1/events/decide")
    assert request.headers["authorization"] == "Bearer sk-1"
    assert json.loads(request.content) == {"text": "the door is open", "source": "home"}


async def test_bad_input_is_refused_before_anything_is_sent(harness: Harness) -> None:
    """As the server would refuse it, and caught the same way (a trial's ``except InvalidRequest``
    missed pydantic's own error)."""

    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("nothing should be sent")

    with pytest.raises(InvalidRequest) as refused:
        await harness.run(handler, lambda c: c.executive.decide({"source": "home", "urgency": "very"}))
    assert isinstance(refused.value, InvalidInput) and refused.value.field == "text"
    assert [e["field"] for e in refused.value.errors] == ["text", "urgency"]
    with pytest.raises(InvalidInput, match="an id is a non-empty string, not 123"):
        await harness.run(handler, lambda c: c.heuristics.get(123))


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (400, InvalidRequest),
        (401, Unauthorized),
        (404, NotFound),
        (409, Conflict),
        (422, InvalidRequest),
        (500, ServerError),
    ],
)
async def test_problem_json_becomes_a_typed_error_naming_the_field(harness: Harness, status: int, kind: type) -> None:
    with pytest.raises(kind) as raised:
        await harness.run(lambda _: _problem(status, "query"), lambda c: c.routing.route("s-1", {"query": "hi"}))
    error = raised.value
    assert (error.status, error.field, error.detail) == (status, "query", "it went wrong")
    assert error.errors == [{"field": "query", "in": "body", "message": "is required"}]


async def test_a_403_past_a_quota_is_quota_exceeded_not_unauthorized(harness: Harness) -> None:
    """A tenant past its quota is told so, not that its key is wrong; other 403s stay Unauthorized."""
    body = {"type": "about:blank", "title": "Quota exceeded", "status": 403, "detail": "stores 5 documents",
            "field": "documents"}  # fmt: skip
    quota = httpx.Response(403, json=body, headers={"content-type": "application/problem+json"})
    with pytest.raises(QuotaExceeded) as raised:
        await harness.run(lambda _: quota, lambda c: c.routing.add_documents([{"text": "hello"}]))
    assert raised.value.field == "documents" and not isinstance(raised.value, Unauthorized)
    with pytest.raises(Unauthorized):
        await harness.run(lambda _: _problem(403), lambda c: c.routing.add_documents([{"text": "hello"}]))


async def test_a_503_is_retried_and_the_next_answer_stands(harness: Harness) -> None:
    answers = iter([_problem(503, **{"Retry-After": "0"}), httpx.Response(200, json=_routed())])
    result = await harness.run(lambda _: next(answers), lambda c: c.routing.route("s-1", {"query": "hi"}))
    assert isinstance(result, RouteResult) and result.decision == "REASON_ONLY"


async def test_retries_end_with_the_last_error_and_what_the_server_asked(harness: Harness) -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return _problem(503, **{"Retry-After": "0"})

    with pytest.raises(Unavailable) as raised:
        await harness.run(handler, lambda c: c.routing.route("s-1", {"query": "hi"}))
    assert len(calls) == 3 and raised.value.retry_after == 0.0


async def test_a_connection_never_made_is_retried_but_a_timeout_after_sending_is_not(harness: Harness) -> None:
    tries: list[str] = []

    def refuse(request: httpx.Request) -> httpx.Response:
        tries.append("connect")
        raise httpx.ConnectError("refused", request=request)

    with pytest.raises(TransportFailed):
        await harness.run(refuse, lambda c: c.executive.decide({"text": "x"}))
    assert tries == ["connect"] * 3

    def slow(request: httpx.Request) -> httpx.Response:
        tries.append("read")
        raise httpx.ReadTimeout("no answer", request=request)

    with pytest.raises(TransportFailed):  # the event may have been decided and recorded: not sent twice
        await harness.run(slow, lambda c: c.executive.decide({"text": "x"}))
    assert tries.count("read") == 1


async def test_one_attempt_means_no_retry(harness: Harness) -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return _problem(429, **{"Retry-After": "0"})

    with pytest.raises(Exception, match="429"):
        await harness.run(handler, lambda c: c.executive.decide({"text": "x"}), retry=RetryPolicy(attempts=1))
    assert calls == [1]


async def test_ids_are_one_path_segment(harness: Harness) -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.raw_path.decode())
        return _problem(404)

    with pytest.raises(NotFound):
        await harness.run(handler, lambda c: c.decisions.get("a/b"))
    assert seen == ["/v1/decisions/a%2Fb"]


def test_without_a_base_url_the_client_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    from phronesis.client import Client

    monkeypatch.delenv("PHRONESIS_URL", raising=False)
    with pytest.raises(ValueError, match="PHRONESIS_URL"):
        Client()
    monkeypatch.setenv("PHRONESIS_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("PHRONESIS_API_KEY", "sk-env")
    with Client() as client:
        assert client._http.base_url == httpx.URL("http://127.0.0.1:9")
        assert client._http.headers["authorization"] == "Bearer sk-env"


async def test_an_answer_that_is_not_the_servers_model_is_a_client_error(harness: Harness) -> None:
    with pytest.raises(UnexpectedAnswer, match=r"POST /v1/events/decide: .*\(accepted: Field required"):
        await harness.run(
            lambda _: httpx.Response(200, json={"what": "no"}), lambda c: c.executive.decide({"text": "x"})
        )


def _routed() -> dict[str, object]:
    return {
        "decision_id": "d-1",
        "session_id": "s-1",
        "status": "routed",
        "decision": "REASON_ONLY",
        "confidence": 0.9,
        "band": "high",
        "path": "local",
        "reasoning": "small talk",
        "session_mode": "auto",
    }


def test_the_docs_mock_transport_example_runs() -> None:
    run_doc_python(*MOCK_TRANSPORT)

"""Request errors are problem+json a client can act on (issue 20): malformed JSON is a 400 saying
where, a body that is not sent as JSON a 415 naming the header, an outage a 503 with Retry-After."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from phronesis.api.problems import install_problem_handlers
from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.embeddings.types import Vectors
from phronesis.engine import Engine
from phronesis.exceptions import EmbeddingError, StorageContention
from phronesis.server import create_app
from phronesis.settings import Settings
from tests.api.conftest import LiveServer

ROUTES = ["/v1/heuristics", "/v1/events/decide", "/v1/heuristics/match"]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(
    ("body", "where"),
    [
        ('{"condition_text": "x", ', "line 1, column 25"),
        ('{\n  "condition_text": "x",\n}', "line 3, column 1"),
        ("[1, 2", "line 1, column 6"),
    ],
)
def test_malformed_json_is_400_with_line_and_column(live_server: LiveServer, route: str, body: str, where: str) -> None:
    with live_server.client() as client:
        response = client.post(route, content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["title"] == "Malformed JSON" and problem["field"] == "body"
    assert problem["detail"].startswith("the request body is not valid JSON: ")
    assert problem["detail"].endswith(f"at {where}")


@pytest.mark.parametrize("route", ROUTES)
def test_a_body_that_is_not_utf8_is_400_naming_the_body_and_the_byte(live_server: LiveServer, route: str) -> None:
    with live_server.client() as client:
        response = client.post(route, content=b'{"text": "caf\xe9"}', headers={"content-type": "application/json"})
    assert response.status_code == 400
    problem = response.json()
    assert problem["field"] == "body"
    assert problem["detail"] == "the request body is not UTF-8 text: byte 14 cannot be decoded"


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(("content_type", "got"), [(None, "none"), ("text/plain", "'text/plain'")])
def test_a_body_not_sent_as_json_is_415_naming_the_header(
    live_server: LiveServer, route: str, content_type: str | None, got: str
) -> None:
    headers = {"content-type": content_type} if content_type else {}
    with live_server.client() as client:
        response = client.post(route, content='{"condition_text": "x", "action_text": "y"}', headers=headers)
    assert response.status_code == 415
    problem = response.json()
    assert problem["field"] == "content-type"
    assert problem["detail"] == f"send the body as JSON with the header Content-Type: application/json (got {got})"


def test_json_with_a_charset_or_a_json_suffix_is_accepted(live_server: LiveServer) -> None:
    with live_server.client() as client:
        for content_type in ("application/json; charset=utf-8", "application/merge-patch+json"):
            response = client.post(
                "/v1/heuristics/match", content='{"text": "a parcel"}', headers={"content-type": content_type}
            )
            assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    ("method", "route", "field", "payload"),
    [
        ("GET", "/v1/decisions", "until", {"until": "0001-01-01T00:00:00+01:01"}),
        ("GET", "/v1/memory-decisions", "since", {"since": "9999-12-31T23:59:59-01:00"}),
        (
            "POST",
            "/v1/documents",
            "published_at",
            {"documents": [{"text": "x", "published_at": "0001-01-01T00:00:00+05:00"}]},
        ),
    ],
)
def test_a_time_utc_cannot_hold_is_422_naming_the_field(
    live_server: LiveServer, method: str, route: str, field: str, payload: object
) -> None:
    """Found by the OpenAPI fuzz test: year 1 at a positive offset overflowed on the way to the
    database and answered 500."""
    with live_server.client() as client:
        response = client.request(method, route, **({"params": payload} if method == "GET" else {"json": payload}))
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert field in response.text and "out of range once converted to UTC" in response.text
    assert "Value error" not in response.text  # pydantic's prefix is not for people


def test_a_transaction_rolled_back_by_the_database_is_a_503_to_retry_now() -> None:
    """A deadlock victim (``StorageContention``) stored nothing and may succeed at once: a 503 with
    ``Retry-After: 1``, not a 500 with an error id."""
    app = FastAPI()
    install_problem_handlers(app)

    @app.post("/rate")
    async def rate() -> None:
        raise StorageContention("database rolled the call back: DeadlockDetectedError: deadlock detected")

    answer = TestClient(app).post("/rate")
    assert answer.status_code == 503
    assert answer.headers["retry-after"] == "1"
    assert answer.headers["content-type"] == "application/problem+json"
    assert "retry" in answer.json()["detail"] and "error_id" not in answer.json()


@pytest.mark.parametrize(
    ("route", "unknown", "takes"),
    [
        ("/v1/decisions", "bogus", "kind, limit, offset, path, since, strategy, subject_id, until"),
        ("/v1/decisions", "subject", "kind, limit, offset, path, since, strategy, subject_id, until"),
        ("/v1/heuristics/export", "format", "none"),
    ],
)
def test_an_unknown_query_parameter_is_422_naming_it(
    live_server: LiveServer, route: str, unknown: str, takes: str
) -> None:
    """Issue 52: ``/v1/decisions?bogus=1`` answered every decision; ``?subject=`` filtered nothing."""
    with live_server.client() as client:
        refused = client.get(route, params={unknown: "1"})
        assert client.get(route, params={"limit": "1"} if takes != "none" else {}).status_code == 200
    assert refused.status_code == 422 and refused.headers["content-type"] == "application/problem+json"
    (error,) = refused.json()["errors"]
    assert error["field"] == unknown
    assert error["message"] == f"is not a query parameter of this endpoint; it takes {takes}"


class _Breakable(HashingEmbedder):
    """The hashing embedder, until it is broken: then every embedding fails as the model's would."""

    broken = False

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if self.broken:
            raise EmbeddingError("all-MiniLM-L6-v2 failed to embed 1 texts: out of memory")
        return await super().embed(texts)


def test_an_embedding_failure_is_a_503_to_retry_and_stores_nothing(tmp_path: Path) -> None:
    """Issue 52: ``POST /v1/runs`` with the embedder failing answered 500 with a traceback in the log;
    like any outage it is a 503 with Retry-After, and nothing half-written."""
    embedder = _Breakable(384)
    settings = Settings(data_dir=tmp_path, embeddings={"spec": "hashing:384"}, api={"dev_mode": True})
    app = create_app(Engine(settings, embedder=embedder, llm=None), close_engine=True)
    bodies = {
        "/v1/runs": {"agent_id": "a", "task": "Generate the invoice schema", "outcome": "success"},
        "/v1/events/decide": {"text": "the hall is dark"},
        "/v1/heuristics": {"condition_text": "the hall is dark", "action_text": "turn on the light"},
    }
    with TestClient(app, base_url="http://127.0.0.1") as client:
        embedder.broken = True
        for path, body in bodies.items():
            answer = client.post(path, json=body)
            assert answer.status_code == 503 and answer.headers["retry-after"], (path, answer.text)
            assert answer.json()["title"] == "Embedding model unavailable" and "error_id" not in answer.json()
        embedder.broken = False
        assert client.get("/v1/runs").json()["total"] == 0
        assert client.get("/v1/decisions").json()["total"] == 0
        assert client.get("/v1/heuristics").json()["total"] == 0

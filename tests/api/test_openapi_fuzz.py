"""Schemathesis fuzzes every endpoint in the OpenAPI spec: no input may produce a 5xx.

The spec is taken from the app itself, so every endpoint added later is fuzzed too. It fuzzes
its own server: a generated ``PUT /v1/proactive/pause {"paused": true}`` left the shared one's
tenant paused for the tests that came after it.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.engine import Engine
from phronesis.server import create_app
from phronesis.settings import Settings
from tests.api.conftest import API_KEY, LiveServer

pytestmark = pytest.mark.fuzz  # schemathesis against every endpoint

_spec_engine = Engine(
    Settings(database={"url": "sqlite+aiosqlite:///:memory:"}, embeddings={"spec": "hashing:384"}),
    embedder=HashingEmbedder(384),
    llm=None,
)
schema = schemathesis.openapi.from_dict(create_app(_spec_engine).openapi())


@schemathesis.serializer("application/x-ndjson")
def _ndjson(_: object, value: object) -> dict[str, bytes]:
    """The import endpoint takes JSON Lines; send whatever text was generated, as is."""
    return {"data": value if isinstance(value, bytes) else str(value).encode("utf-8")}


@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_input_makes_the_server_fail(case: schemathesis.Case, own_server: LiveServer) -> None:
    case.call_and_validate(
        base_url=own_server.base_url,
        headers={"Authorization": f"Bearer {API_KEY}"},
        checks=[not_a_server_error],
    )

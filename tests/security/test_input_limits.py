"""Input a tenant sends cannot break its own pages or the database (issue 49, items 8, 9 and 12).

Through a real server process, on SQLite and on PostgreSQL (pgvector's server):

- a signal whose ``data`` nests 400 deep answered 500 *and was stored*; every page holding it then
  answered 500. Now 422 naming the field, nothing stored, the pages answer;
- NUL (``\\u0000``) in a heuristic, a JSON Lines import or a filter answered 500 on PostgreSQL.
  Now 422 naming the field (or the line, or the query parameter) on both;
- a run's ``attributes`` of 9 MB was stored and returned whole. A free-form object is now capped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.processes import phronesis_env, server


def _refused(answer: httpx.Response, field: str) -> None:
    assert answer.status_code == 422, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert answer.json()["field"] == field, answer.json()


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.process
def test_hostile_json_is_refused_by_name_and_nothing_is_stored_on_sqlite(tmp_path: Path) -> None:
    _story(phronesis_env(tmp_path))


@pytest.mark.process
@pytest.mark.pgvector
def test_hostile_json_is_refused_by_name_and_nothing_is_stored_on_postgres(tmp_path: Path, pgvector_url: str) -> None:
    _story(phronesis_env(tmp_path, PHRONESIS_DATABASE__URL=pgvector_url, PHRONESIS_INDEX__BACKEND="exact"))


def _story(env: dict[str, str]) -> None:
    with server(env) as base, httpx.Client(base_url=base, timeout=30) as http:
        assert http.put("/v1/users/ana", json={"timezone": "UTC"}).status_code in (200, 201)
        deep = {"signals": [{"type": "deadline_approaching", "urgency_hint": 5, "data": _nested(400)}]}
        _refused(http.post("/v1/users/ana/signals", json=deep), "signals.0.data")
        listed = http.get("/v1/users/ana/signals")
        assert listed.status_code == 200 and listed.json()["items"] == []

        nul = {"condition_text": "the kitchen\u0000 is on fire", "action_text": "call for help"}
        _refused(http.post("/v1/heuristics", json=nul), "condition_text")
        lines = [json.dumps({"condition_text": "ok", "action_text": text}) for text in ("fine", "bad\u0000")]
        imported = http.post("/v1/heuristics/import", content="\n".join(lines) + "\n",
                             headers={"content-type": "application/x-ndjson"})  # fmt: skip
        _refused(imported, "line 2: action_text")
        _refused(http.get("/v1/heuristics", params={"domain": "gar\u0000den"}), "domain")
        assert http.get("/v1/heuristics").json()["items"] == []

        big = {"task": "Generate schema", "outcome": "success", "attributes": {"blob": "x" * (100 * 1024)}}
        _refused(http.post("/v1/runs", json=big), "attributes")

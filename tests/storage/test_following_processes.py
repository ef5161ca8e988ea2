"""Many processes on one database (issue 19): a write made through one process (the CLI, a
server, a worker of ``serve --workers``) is searched by every other running process within 1 s.

Real ``phronesis`` processes over loopback, on a SQLite file and on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import POSTGRES_URL, admin
from tests.processes import cli, phronesis_env, server, within

pytestmark = pytest.mark.process  # servers and CLI commands on one database

VISIBLE_WITHIN_S = 1.0


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("postgres", marks=pytest.mark.postgres),
        pytest.param("pgvector", marks=pytest.mark.pgvector),
    ]
)
def env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, str]]:
    """A migrated database of its own, and the environment every process of the test shares."""
    if request.param == "sqlite":
        variables = phronesis_env(tmp_path)
        cli(variables, "db", "upgrade")
        yield variables
        return
    if request.param == "pgvector":
        server = request.getfixturevalue("pgvector_server")
        name = f"phx_{uuid.uuid4().hex[:12]}"
        asyncio.run(admin(server, f'CREATE DATABASE "{name}"'))
        try:
            url = server.replace("/postgres?", f"/{name}?")
            variables = phronesis_env(tmp_path, PHRONESIS_DATABASE__URL=url, PHRONESIS_INDEX__BACKEND="pgvector")
            cli(variables, "db", "upgrade")
            yield variables
        finally:
            asyncio.run(admin(server, f'DROP DATABASE "{name}" WITH (FORCE)'))
        return
    if POSTGRES_URL is None:
        pytest.skip("PHRONESIS_TEST_DATABASE_URL is not set")
    name = f"phx_{uuid.uuid4().hex[:12]}"
    asyncio.run(admin(POSTGRES_URL, f'CREATE DATABASE "{name}"'))
    try:
        variables = phronesis_env(tmp_path, PHRONESIS_DATABASE__URL=POSTGRES_URL.rsplit("/", 1)[0] + f"/{name}")
        cli(variables, "db", "upgrade")
        yield variables
    finally:
        asyncio.run(admin(POSTGRES_URL, f'DROP DATABASE "{name}" WITH (FORCE)'))


def _matches(base: str, condition: str, source: str) -> list[str]:
    body = {"text": condition, "source": source, "min_similarity": 0.9}
    response = httpx.post(f"{base}/v1/heuristics/match", json=body, timeout=60)
    assert response.status_code == 200, response.text
    return [m["heuristic"]["id"] for m in response.json()["matches"]]


def _decide(base: str, event: str, source: str) -> dict[str, Any]:
    response = httpx.post(f"{base}/v1/events/decide", json={"text": event, "source": source}, timeout=60)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def test_a_heuristic_written_anywhere_is_matched_everywhere(env: dict[str, str]) -> None:
    parcel, fridge = "a parcel is left at the front door", "the fridge door has been open for ten minutes"
    with server(env) as a, server(env) as b:
        # added by the CLI while both servers run (the bug this issue was filed for)
        hid = cli(env, "heuristics", "add", "--condition", parcel, "--action", "notify the user",
                  "--domain", "home", "--confidence", "0.9").strip()  # fmt: skip
        for base in (a, b):
            within(VISIBLE_WITHIN_S, lambda base=base: _matches(base, parcel, "home") == [hid])
        decision = _decide(b, parcel, "home")
        assert (decision["decision_path"], decision["matched_heuristic_id"]) == ("heuristic", hid)

        # re-embedded through server A: B matches the new condition, not the old one
        patched = httpx.patch(f"{a}/v1/heuristics/{hid}", json={"condition_text": fridge}, timeout=60)
        assert patched.status_code == 200, patched.text
        within(VISIBLE_WITHIN_S, lambda: _matches(b, fridge, "home") == [hid])
        assert _matches(b, parcel, "home") == []

        # moved to another domain by the CLI: both servers follow the move
        cli(env, "heuristics", "update", hid, "--domain", "kitchen")
        for base in (a, b):
            within(VISIBLE_WITHIN_S, lambda base=base: _matches(base, fridge, "kitchen") == [hid])
            assert _matches(base, fridge, "home") == []

        # deleted through B: A stops matching and deciding with it
        assert httpx.delete(f"{b}/v1/heuristics/{hid}", timeout=60).status_code == 204
        within(VISIBLE_WITHIN_S, lambda: _matches(a, fridge, "kitchen") == [])
        assert _decide(a, fridge, "kitchen")["decision_path"] != "heuristic"


def _search_runs(base: str, query: str) -> list[str]:
    params = {"q": query, "agent_id": "billing", "user_id": "u1", "min_similarity": 0.9}
    response = httpx.get(f"{base}/v1/runs/search", params=params, timeout=60)
    assert response.status_code == 200, response.text
    return [hit["run"]["id"] for hit in response.json()["hits"]]


def test_a_run_admitted_anywhere_is_searched_everywhere(env: dict[str, str]) -> None:
    task = "reconcile the March invoices for the Acme account"
    summary = "matched all 41 March invoices of the Acme account against the ledger"
    with server(env) as a, server(env) as b:
        assert _search_runs(b, summary) == []  # B has loaded the (empty) runs index
        admitted = cli(env, "admission", "admit", "--task", task, "--outcome", "success", "--summary", summary,
                       "--agent", "billing", "--user", "u1", "--json")  # fmt: skip
        run_id = json.loads(admitted)["run_id"]
        for base in (a, b):
            within(VISIBLE_WITHIN_S, lambda base=base: _search_runs(base, summary) == [run_id])
        # admitted through A, searched on B
        run = {"task": "close the April books", "outcome": "success", "summary": "closed the April books on time",
               "agent_id": "billing", "user_id": "u1"}  # fmt: skip
        second = httpx.post(f"{a}/v1/runs", json=run, timeout=60).json()
        assert second["decision"] == "ADD", second
        within(VISIBLE_WITHIN_S, lambda: _search_runs(b, run["summary"]) == [second["run_id"]])


def _route_sources(base: str, session: str, query: str) -> list[str]:
    response = httpx.post(f"{base}/v1/sessions/{session}/route", json={"query": query}, timeout=60)
    assert response.status_code == 200, response.text
    return [source["id"] for source in response.json()["sources"]]


def test_a_document_added_or_deleted_anywhere_is_retrieved_accordingly_everywhere(env: dict[str, str]) -> None:
    query = "What is your Starter plan pricing per month?"
    document = {"id": "pricing", "doc_type": "sop", "title": "Starter plan pricing", "text": query + " 10 dollars."}
    with server(env) as a, server(env) as b:
        assert httpx.post(f"{b}/v1/sessions", json={"id": "s1"}, timeout=60).status_code == 201
        assert _route_sources(b, "s1", query) == []  # B has loaded the (empty) knowledge base
        created = httpx.post(f"{a}/v1/documents", json={"documents": [document]}, timeout=60)
        assert created.status_code == 201, created.text
        within(VISIBLE_WITHIN_S, lambda: _route_sources(b, "s1", query) == ["pricing"])
        assert httpx.delete(f"{a}/v1/documents/pricing", timeout=60).status_code == 204
        within(VISIBLE_WITHIN_S, lambda: _route_sources(b, "s1", query) == [])


def test_serve_with_two_workers_answers_consistently(env: dict[str, str]) -> None:
    condition = "the garage door is open after midnight"
    printed: list[str] = []
    with server(env, "--workers", "2", output=printed) as base:
        created = httpx.post(
            f"{base}/v1/heuristics",
            json={"condition_text": condition, "action_text": "close it", "domain": "home", "confidence": 0.9},
            timeout=60,
        )
        assert created.status_code == 201, created.text
        hid = created.json()["id"]
        processes: set[int] = set()
        answers: list[list[str]] = []
        for _ in range(200):  # a new connection each time, so the kernel spreads them over the workers
            answers.append(_matches(base, condition, "home"))
            processes.add(httpx.get(f"{base}/healthz", timeout=60).json()["process"])
        assert len(processes) == 2
        assert all(answer == [hid] for answer in answers)
        backend = httpx.get(f"{base}/healthz", timeout=60).json()["index_backend"]
        assert backend == ("pgvector" if env.get("PHRONESIS_INDEX__BACKEND") == "pgvector" else "hnsw")
    # stopped as a service manager stops it (SIGTERM): its workers shut down cleanly, and no
    # resource-tracker warning of leaked semaphores is printed
    assert "leaked" not in printed[0] and "Traceback" not in printed[0], printed[0]


def test_a_restarted_server_reads_its_snapshot_and_rebuilds_a_corrupt_one(env: dict[str, str], tmp_path: Path) -> None:
    if env.get("PHRONESIS_INDEX__BACKEND") == "pgvector":
        pytest.skip("pgvector keeps no snapshot: the database is its index")
    env = env | {"PHRONESIS_INDEX__SNAPSHOT_MIN_SIZE": "500", "PHRONESIS_INDEX__EXACT_MAX_SIZE": "200"}
    lines = "\n".join(
        json.dumps({"condition_text": f"stored condition {i} about topic {i}", "action_text": "act", "domain": "home"})
        for i in range(1000)
    )
    first: list[str] = []
    with server(env, output=first) as base:
        imported = httpx.post(
            f"{base}/v1/heuristics/import", content=lines, headers={"content-type": "application/x-ndjson"}, timeout=60
        )
        assert imported.status_code == 201, imported.text
        ids = imported.json()["ids"]
    assert "heuristics index: snapshot of 1000 vectors written" in first[0]
    (snapshot,) = (tmp_path / "index").glob("heuristics-*.snapshot")

    again: list[str] = []
    with server(env, output=again) as base:
        assert _matches(base, "stored condition 7 about topic 7", "home") == [ids[7]]
    assert "heuristics index: 1000 vectors from the snapshot" in again[0]

    data = bytearray(snapshot.read_bytes())
    data[len(data) // 2] ^= 0xFF
    snapshot.write_bytes(bytes(data))
    rebuilt: list[str] = []
    with server(env, output=rebuilt) as base:
        assert _matches(base, "stored condition 7 about topic 7", "home") == [ids[7]]
    assert "heuristics index: snapshot not used, rebuilding from the database: a checksum does not match" in rebuilt[0]

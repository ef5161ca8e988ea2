"""Admission over real HTTP: the four decisions, batches, search, memory decisions, and refusals."""

from __future__ import annotations

from pathlib import Path

import httpx

from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.engine import Engine
from phronesis.server import create_app
from phronesis.settings import Settings
from phronesis.testing import ScriptedLLM
from tests.api.conftest import OTHER_KEY, LiveServer
from tests.loopback import serving_app

PROBLEM = "application/problem+json"


def test_runs_are_admitted_searched_and_explained(live_server: LiveServer, unique: str) -> None:
    agent = f"agent-{unique}"
    with live_server.client() as client:
        first = client.post("/v1/runs", json={"agent_id": agent, "task": "Generate schema", "outcome": "failure"})
        assert first.status_code == 200 and first.json()["decision"] == "ADD"
        run_id = first.json()["run_id"]
        again = client.post("/v1/runs", json={"agent_id": agent, "task": "Generate schema", "outcome": "failure"})
        assert (again.json()["decision"], again.json()["target_run_id"]) == ("NOT", run_id)
        better = client.post(
            "/v1/runs", json={"agent_id": agent, "task": "Generate schema", "outcome": "success", "replaces": run_id}
        ).json()
        assert (better["decision"], better["stage"]) == ("REPLACE", "explicit")
        assert client.get(f"/v1/runs/{run_id}").json()["status"] == "superseded"

        hits = client.get("/v1/runs/search", params={"q": "Generate schema", "agent_id": agent}).json()["hits"]
        assert [h["run"]["id"] for h in hits] == [better["run_id"]]
        decisions = client.get("/v1/memory-decisions", params={"agent_id": agent}).json()["items"]
        assert [d["decision"] for d in decisions] == ["REPLACE", "NOT", "ADD"]
        only = client.get("/v1/memory-decisions", params={"decision": "NOT", "agent_id": agent}).json()["items"]
        assert [d["target_run_id"] for d in only] == [run_id]
        listed = client.get("/v1/runs", params={"agent_id": agent, "status": "active"}).json()["items"]
        assert [r["id"] for r in listed] == [better["run_id"]]
        audit = client.get(f"/v1/decisions/{better['decision_id']}").json()
        assert (audit["kind"], audit["action"], audit["path"]) == ("admission", "REPLACE", "explicit")

    with live_server.client(OTHER_KEY) as other:
        assert other.get(f"/v1/runs/{run_id}").status_code == 404
        assert other.get("/v1/runs/search", params={"q": "Generate schema", "agent_id": agent}).json() == {"hits": []}


def test_a_batch_is_one_transaction_and_counts_its_decisions(live_server: LiveServer, unique: str) -> None:
    agent = f"batch-{unique}"
    run = {"agent_id": agent, "task": "Generate schema", "outcome": "success"}
    with live_server.client() as client:
        response = client.post("/v1/runs/batch", json={"runs": [run, run, {**run, "task": "Write release notes"}]})
        assert response.status_code == 200
        body = response.json()
        assert body["counts"] == {"ADD": 2, "NOT": 1, "REPLACE": 0, "MERGE": 0}
        assert {r["batch_id"] for r in body["results"]} == {body["batch_id"]} != {None}
        listed = client.get("/v1/memory-decisions", params={"batch_id": body["batch_id"]}).json()["items"]
        assert sorted(d["id"] for d in listed) == sorted(r["decision_id"] for r in body["results"])
        refused = client.post("/v1/runs/batch", json={"runs": [{**run, "task": "New"}, {**run, "replaces": "nope"}]})
        assert refused.status_code == 422 and refused.headers["content-type"].startswith(PROBLEM)
        assert "runs.1.replaces" in refused.text
        assert len(client.get("/v1/runs", params={"agent_id": agent}).json()["items"]) == 2  # nothing more written


def test_bad_runs_get_problem_details_naming_the_field(live_server: LiveServer, unique: str) -> None:
    with live_server.client() as client:
        theirs = client.post("/v1/runs", json={"agent_id": f"a-{unique}", "task": "T", "outcome": "failure"}).json()
        cases = [
            ({"outcome": "success"}, "task"),
            ({"task": "Generate schema"}, "outcome"),
            ({"task": "Generate schema", "outcome": "done"}, "outcome"),
            ({"task": "x" * 5000, "outcome": "success"}, "task"),
            ({"task": "T", "outcome": "success", "references": ["r"] * 201}, "references"),
            ({"task": "T", "outcome": "success", "replaces": theirs["run_id"]}, "replaces"),
        ]
        for body, field in cases:
            response = client.post("/v1/runs", json=body)
            assert response.status_code == 422, body
            assert response.headers["content-type"].startswith(PROBLEM)
            assert field in response.text, (body, response.text)
        assert client.get("/v1/runs/search", params={"q": " "}).status_code == 422
        clash = client.post("/v1/runs", json={"id": theirs["run_id"], "task": "T", "outcome": "success"})
        assert clash.status_code == 409
        assert client.post("/v1/runs", content=b"{" * 11 * 1024 * 1024).status_code == 413


def test_the_judges_fallbacks_are_counted_in_metrics(tmp_path: Path) -> None:
    """Issue 23: each fallback is recorded as what it is and counted in /metrics, from the
    database (every worker reports the same counts)."""
    answers = [
        "I would merge these.",  # not JSON: the fail-safe decides
        '{"decision": "MERGE", "target_run_id": 1, "reason": "both schemas wo',  # cut off: repaired
        '{"decision": "REPLACE", "reason": "better"}',  # no target: the fail-safe decides
    ]
    settings = Settings(
        data_dir=tmp_path, embeddings={"spec": "hashing:384"}, api={"dev_mode": True}, proactive={"scheduler": False}
    )
    engine = Engine(settings, embedder=HashingEmbedder(384), llm=ScriptedLLM(answers))
    run = {"agent_id": "etl", "task": "Generate schema", "outcome": "success", "summary": "Generated the schema."}
    with serving_app(create_app(engine, close_engine=True)) as base_url, httpx.Client(base_url=base_url) as client:
        assert client.post("/v1/runs", json=run).json()["decision"] == "ADD"  # nothing similar: no LLM call
        decided = [client.post("/v1/runs", json=run | {"references": [f"r{i}"]}).json() for i in range(3)]
        assert [(d["decision"], d["stage"], d["rule"]) for d in decided] == [
            ("ADD", "fail_safe", "not_json"),
            ("MERGE", "judge", "repaired_output"),
            ("ADD", "fail_safe", "missing_target"),
        ]
        metrics = client.get("/metrics").text
    for reason in ("not_json", "repaired_output", "missing_target"):
        assert f'phronesis_admission_fallbacks{{reason="{reason}"}} 1.0' in metrics


def test_a_run_is_deleted_once(live_server: LiveServer, unique: str) -> None:
    with live_server.client() as client:
        run = {"agent_id": f"del-{unique}", "task": "Generate schema", "outcome": "failure", "summary": "Tried."}
        failed = client.post("/v1/runs", json=run).json()
        better = client.post("/v1/runs", json=run | {"outcome": "success"}).json()
        assert better["decision"] == "REPLACE"
        assert client.delete(f"/v1/runs/{better['run_id']}").status_code == 204
        assert client.get(f"/v1/runs/{failed['run_id']}").json()["status"] == "active"
        again = client.delete(f"/v1/runs/{better['run_id']}")
        assert again.status_code == 404 and again.headers["content-type"] == PROBLEM


def test_a_decision_is_undone_once(live_server: LiveServer, unique: str) -> None:
    with live_server.client() as client:
        run = {"agent_id": f"undo-{unique}", "task": "Generate schema", "outcome": "failure", "summary": "Tried."}
        failed = client.post("/v1/runs", json=run).json()
        better = client.post("/v1/runs", json=run | {"outcome": "success"}).json()
        undone = client.post(f"/v1/memory-decisions/{better['decision_id']}/undo")
        assert undone.status_code == 200, undone.text
        assert (undone.json()["deleted_run_id"], undone.json()["restored"]) == (better["run_id"], [failed["run_id"]])
        assert client.get(f"/v1/runs/{failed['run_id']}").json()["status"] == "active"
        again = client.post(f"/v1/memory-decisions/{better['decision_id']}/undo")
        assert again.status_code == 409 and again.headers["content-type"] == PROBLEM
        assert again.json()["field"] == "decision_id"
        record = client.get(f"/v1/decisions/{undone.json()['undo_id']}").json()
        assert (record["path"], record["action"]) == ("undo", "UNDO")


def test_a_decision_is_rated_and_a_bad_rating_names_its_field(live_server: LiveServer, unique: str) -> None:
    with live_server.client() as client:
        run = {"agent_id": f"rate-{unique}", "task": "Generate schema", "outcome": "success", "summary": "Wrote it."}
        first = client.post("/v1/runs", json=run).json()
        again = client.post("/v1/runs", json=run).json()
        assert again["decision"] == "NOT"
        url = f"/v1/memory-decisions/{again['decision_id']}/feedback"
        rated = client.post(url, json={"correct": False, "expected_decision": "MERGE", "note": "a second approach"})
        assert rated.status_code == 200, rated.text
        assert rated.json()["outcome"] == "incorrect"
        assert rated.json()["teaches"] | {"first": "", "second": ""} == {
            "duplicate": False,
            "run_id": first["run_id"],
            "first": "",
            "second": "",
        }
        assert client.get(f"/v1/decisions/{again['decision_id']}").json()["outcome"] == "incorrect"
        for body, field in (
            ({"correct": True, "expected_decision": "ADD"}, "expected_decision"),
            ({"correct": False, "expected_decision": "NOT"}, "expected_decision"),  # what it decided
            ({"correct": False, "expected_decision": "KEEP"}, "expected_decision"),
            ({"correct": "maybe"}, "correct"),
            ({"correct": "yes"}, "correct"),  # not read as true
            ({"correct": 1}, "correct"),
        ):
            refused = client.post(url, json=body)
            assert refused.status_code == 422 and refused.headers["content-type"] == PROBLEM, refused.text
            assert refused.json()["field"] == field, refused.json()
        missing = client.post("/v1/memory-decisions/nope/feedback", json={"correct": True})
        assert missing.status_code == 404 and missing.headers["content-type"] == PROBLEM


def test_a_number_json_cannot_store_is_refused_not_nulled(live_server: LiveServer) -> None:
    """Python reads NaN, Infinity and 1e400; stored they would come back null. 422 names the key."""
    with live_server.client() as client:
        for raw in ("1e400", "NaN", "-Infinity"):
            body = '{"task": "Bill it", "outcome": "success", "attributes": {"cost": {"eur": [1, RAW]}}}'.replace(
                "RAW", raw
            )
            refused = client.post("/v1/runs", content=body, headers={"content-type": "application/json"})
            assert refused.status_code == 422 and refused.headers["content-type"] == PROBLEM, refused.text
            assert refused.json()["field"] == "attributes" and "cost.eur[1]" in refused.json()["detail"]

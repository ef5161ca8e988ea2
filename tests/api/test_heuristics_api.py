"""The heuristics endpoints over real HTTP: CRUD, match, confidence, import/export, errors."""

from __future__ import annotations

import json

from tests.api.conftest import OTHER_KEY, LiveServer

PROBLEM = "application/problem+json"


def body(condition: str, **extra: object) -> dict[str, object]:
    return {"condition_text": condition, "action_text": "turn the heating up", "domain": "home", **extra}


def test_create_get_patch_delete(live_server: LiveServer, unique: str) -> None:
    with live_server.client() as client:
        created = client.post("/v1/heuristics", json=body(f"cold room {unique}", confidence=0.3))
        assert created.status_code == 201
        hid = created.json()["id"]
        assert created.json()["confidence"] == 0.3 and created.json()["tenant"] == "tenant-a"
        assert client.get(f"/v1/heuristics/{hid}").json()["condition_text"] == f"cold room {unique}"
        patched = client.patch(f"/v1/heuristics/{hid}", json={"action_text": "close the window"})
        assert patched.status_code == 200 and patched.json()["action_text"] == "close the window"
        assert client.delete(f"/v1/heuristics/{hid}").status_code == 204
        missing = client.get(f"/v1/heuristics/{hid}")
        assert missing.status_code == 404 and missing.headers["content-type"] == PROBLEM


def test_other_tenants_cannot_see_it(live_server: LiveServer, unique: str) -> None:
    with live_server.client() as a, live_server.client(OTHER_KEY) as b:
        hid = a.post("/v1/heuristics", json=body(f"private {unique}")).json()["id"]
        assert b.get(f"/v1/heuristics/{hid}").status_code == 404
        assert b.post("/v1/heuristics/match", json={"text": f"private {unique}", "min_similarity": 0}).json() == {
            "matches": []
        }


def test_match_and_confidence_update(live_server: LiveServer, unique: str) -> None:
    with live_server.client() as client:
        hid = client.post("/v1/heuristics", json=body(f"the {unique} sensor reports smoke")).json()["id"]
        found = client.post(
            "/v1/heuristics/match", json={"text": f"the {unique} sensor reports smoke", "source": "home"}
        )
        assert [m["heuristic"]["id"] for m in found.json()["matches"]][:1] == [hid]
        assert found.json()["matches"][0]["similarity"] > 0.99
        update = client.post(f"/v1/heuristics/{hid}/confidence", json={"positive": True, "source": "user_explicit"})
        assert update.status_code == 200
        assert update.json()["old_confidence"] == 0.5 and update.json()["new_confidence"] > 0.5


def test_validation_errors_are_problem_json_naming_the_field(live_server: LiveServer) -> None:
    with live_server.client() as client:
        response = client.post("/v1/heuristics", json={"condition_text": "", "action_text": "x"})
        assert response.status_code == 422 and response.headers["content-type"] == PROBLEM
        assert response.json()["field"] == "condition_text"
        response = client.post("/v1/heuristics", json=body("x", confidence=1.5))
        assert response.json()["field"] == "confidence"
        response = client.post("/v1/heuristics", content=b"{not json", headers={"content-type": "application/json"})
        assert response.status_code == 400 and response.json()["field"] == "body"  # issue 20: 400 for malformed JSON
        response = client.post("/v1/heuristics/nope/confidence", json={"positive": True, "magnitude": -1})
        assert response.json()["field"] == "magnitude"


def test_auth_is_required_and_checked(live_server: LiveServer) -> None:
    with live_server.client(key=None) as anonymous, live_server.client(key="sk-wrong") as wrong:
        assert anonymous.get("/v1/heuristics").status_code == 401
        assert wrong.get("/v1/heuristics").status_code == 401
        assert wrong.get("/v1/heuristics").headers["content-type"] == PROBLEM
        assert anonymous.get("/healthz").status_code == 200


def test_import_is_all_or_nothing_and_export_round_trips(live_server: LiveServer, unique: str) -> None:
    lines = [json.dumps(body(f"imported {unique} {i}", id=f"imp-{unique}-{i}")) for i in range(3)]
    with live_server.client() as client:
        bad = client.post("/v1/heuristics/import", content="\n".join([*lines, '{"condition_text": ""}']))
        assert bad.status_code == 422 and bad.json()["field"].startswith("line 4")
        assert client.get(f"/v1/heuristics/imp-{unique}-0").status_code == 404
        good = client.post("/v1/heuristics/import", content="\n".join(lines))
        assert good.status_code == 201 and good.json()["imported"] == 3
        again = client.post("/v1/heuristics/import", content=lines[0])
        assert again.status_code == 409 and "upsert" in again.json()["detail"]
        # an export imported back into its own tenant: each existing id replaced (issue 26)
        changed = json.dumps(body(f"imported {unique} changed", id=f"imp-{unique}-0", confidence=0.9))
        upserted = client.post("/v1/heuristics/import", params={"upsert": "true"}, content=changed)
        assert upserted.status_code == 201 and upserted.json()["ids"] == [f"imp-{unique}-0"], upserted.text
        assert client.get(f"/v1/heuristics/imp-{unique}-0").json()["condition_text"] == f"imported {unique} changed"
        exported = client.get("/v1/heuristics/export").text.splitlines()
        assert sum(f"imp-{unique}" in line for line in exported) == 3


def test_oversized_bodies_are_refused(live_server: LiveServer) -> None:
    with live_server.client() as client:
        response = client.post("/v1/heuristics/import", content=b"x" * (11 * 1024 * 1024))
        assert response.status_code == 413 and response.headers["content-type"] == PROBLEM


def test_health_and_metrics(live_server: LiveServer) -> None:
    with live_server.client() as client:
        health = client.get("/healthz").json()
        assert health["status"] == "ok" and health["index_backend"]
        # issue 52: "hnsw" read as if every partition were a graph; how the search runs is said in words
        assert health["index_search"].startswith(("in this process", "in PostgreSQL")), health["index_search"]
        ready = client.get("/readyz")
        assert ready.status_code == 200 and ready.json()["status"] == "ready"
        assert ready.json()["parts"]["database"]["state"] == "ok"
        client.get("/v1/heuristics")
        metrics = client.get("/metrics").text
        assert "phronesis_http_requests_total" in metrics and "phronesis_heuristics_indexed" in metrics
        assert 'route="/v1/heuristics",status="200"' in metrics


def test_decisions_are_listed_and_fetched(live_server: LiveServer, unique: str) -> None:
    import asyncio

    from phronesis.audit import NewDecisionRecord

    record = NewDecisionRecord(id=f"d-{unique}", tenant="tenant-a", kind="executive", path="heuristic")
    asyncio.run(_add_via_new_engine(live_server, record))
    with live_server.client() as client, live_server.client(OTHER_KEY) as other:
        assert client.get(f"/v1/decisions/d-{unique}").json()["path"] == "heuristic"
        assert other.get(f"/v1/decisions/d-{unique}").status_code == 404
        listed = client.get("/v1/decisions", params={"kind": "executive"}).json()["items"]
        assert any(item["id"] == f"d-{unique}" for item in listed)
        assert client.get("/v1/decisions", params={"kind": "nonsense"}).status_code == 422


async def _add_via_new_engine(live_server: LiveServer, record: object) -> None:
    from phronesis.audit import DecisionRecordRepository, NewDecisionRecord
    from phronesis.storage.database import Database

    assert isinstance(record, NewDecisionRecord)
    database = Database(live_server.engine.settings.database_url())
    await DecisionRecordRepository(database).write(record)
    await database.dispose()


def test_chunked_bodies_without_a_length_are_limited_too(live_server: LiveServer) -> None:
    def chunks() -> object:
        for _ in range(12):
            yield b"x" * (1024 * 1024)

    with live_server.client() as client:
        response = client.post("/v1/heuristics/import", content=chunks())  # type: ignore[arg-type]
        assert response.status_code == 413 and response.headers["content-type"] == PROBLEM


def test_match_can_list_what_a_decision_considers(live_server: LiveServer, unique: str) -> None:
    """A trial: a heuristic with no domain fired for source "home", and match with that source
    could not show it (decide and the MCP tool include such heuristics)."""
    text = f"someone rings the {unique} doorbell"
    with live_server.client() as client:
        no_domain = {k: v for k, v in body(text).items() if k != "domain"}
        general = client.post("/v1/heuristics", json=no_domain).json()["id"]
        asked = {"text": text, "source": "home"}
        assert client.post("/v1/heuristics/match", json=asked).json()["matches"] == []
        found = client.post("/v1/heuristics/match", json=asked | {"include_general": True}).json()["matches"]
        assert [m["heuristic"]["id"] for m in found][:1] == [general]
        decided = client.post("/v1/events/decide", json=asked).json()
        assert general in [c["heuristic_id"] for c in decided["candidates"]]


def test_a_heuristic_repeating_a_condition_is_created_with_a_warning(live_server: LiveServer, unique: str) -> None:
    """Issue 52: following both tours created the same heuristic twice, silently."""
    condition = f"The porch light {unique} is on at noon"
    body = {"condition_text": condition, "action_text": "switch it off", "domain": "home"}
    with live_server.client() as client:
        first = client.post("/v1/heuristics", json=body).json()
        assert (first["duplicate_of"], first["warning"]) == ([], None)
        again = client.post("/v1/heuristics", json=body | {"condition_text": f"  {condition.lower()} "})
        elsewhere = client.post("/v1/heuristics", json=body | {"domain": "office"}).json()
    assert again.status_code == 201 and again.json()["duplicate_of"] == [first["id"]]
    assert again.json()["warning"].startswith("a heuristic with this condition already exists in domain 'home': ")
    assert (elsewhere["duplicate_of"], elsewhere["warning"]) == ([], None)

"""Routing over real HTTP: a session's turns, handback, tools, documents, and refusals."""

from __future__ import annotations

from tests.api.conftest import OTHER_KEY, LiveServer

PROBLEM = "application/problem+json"


def test_a_conversation_escalates_then_is_handed_back(live_server: LiveServer, unique: str) -> None:
    with live_server.client() as client:
        created = client.post("/v1/sessions", json={"id": f"s-{unique}", "lead_context": {"email": "a@b.c"}})
        assert created.status_code == 201 and created.json()["mode"] == "auto"
        sid = created.json()["id"]
        routed = client.post(f"/v1/sessions/{sid}/route", json={"query": "Thanks, that helps!"}).json()
        assert routed["status"] == "routed" and routed["decision"] == "REASON_ONLY"
        assert routed["composite"]["factors"]["tool_success_rate"] == 1.0

        escalated = client.post(f"/v1/sessions/{sid}/route", json={"query": "I will sue you"}).json()
        assert escalated["decision"] == "ESCALATE" and escalated["session_mode"] == "human"
        owned = client.post(f"/v1/sessions/{sid}/route", json={"query": "hello?"}).json()
        assert owned["status"] == "human_owned" and owned["decision"] is None

        reply = client.post(f"/v1/sessions/{sid}/messages", json={"role": "human_agent", "text": "Hi, Sam here."})
        assert reply.status_code == 201
        back = client.post(f"/v1/sessions/{sid}/handback")
        assert back.status_code == 200 and back.json()["mode"] == "auto"
        decision = client.get(f"/v1/decisions/{escalated['decision_id']}").json()
        assert decision["kind"] == "routing" and decision["reason"] == "sensitive_topic_detected"

    with live_server.client(OTHER_KEY) as other:
        assert other.get(f"/v1/sessions/{sid}").status_code == 404
        assert other.post(f"/v1/sessions/{sid}/route", json={"query": "hi"}).status_code == 404


def test_tools_and_documents(live_server: LiveServer, unique: str) -> None:
    name = f"crm{unique}"
    tool = {
        "name": name,
        "description": "update the CRM",
        "parameters": {"type": "object", "properties": {"company": {"type": "string"}}, "required": ["company"]},
        "critical": False,
    }
    with live_server.client() as client:
        assert client.put(f"/v1/tools/{name}", json=tool).status_code == 201  # new, as a new document is
        assert name in [t["name"] for t in client.get("/v1/tools").json()["items"]]
        # the path names the tool: the body need not repeat it, and its examples are kept
        unnamed = {k: v for k, v in tool.items() if k != "name"} | {"examples": ["set my company to Acme"]}
        registered = client.put(f"/v1/tools/{name}", json=unnamed)
        assert registered.status_code == 200 and registered.json()["examples"] == ["set my company to Acme"]
        assert registered.json()["name"] == name
        sid = client.post("/v1/sessions", json={}).json()["id"]
        outcome = client.post(f"/v1/sessions/{sid}/tool-outcomes", json={"tool": name, "success": False, "attempt": 4})
        assert outcome.json()["next_action"] == "proceed_without_tool"
        assert client.get(f"/v1/sessions/{sid}").json()["tool_failures"] == 1

        first = {"id": f"d-{unique}", "doc_type": "faq", "text": "We open at 9."}
        docs = client.post("/v1/documents", json={"documents": [first]})
        assert docs.status_code == 201 and docs.json()["stored"][0]["doc_type"] == "faq"
        again = client.post("/v1/documents", json={"documents": [{"id": f"d-{unique}", "text": "dup"}]})
        assert again.status_code == 409
        # replaced in one step: the answer changes and nothing is ever missing in between
        replaced = client.put(f"/v1/documents/d-{unique}", json={"doc_type": "faq", "text": "We open at 8."})
        assert replaced.status_code == 200 and replaced.json()["text"] == "We open at 8."
        page = client.get("/v1/documents", params={"limit": 1000}).json()
        assert page["total"] == len(page["items"])
        listed = [d for d in page["items"] if d["id"] == f"d-{unique}"]
        assert [d["text"] for d in listed] == ["We open at 8."]
        assert client.put(f"/v1/documents/n-{unique}", json={"text": "New."}).status_code == 201
        assert client.delete(f"/v1/documents/n-{unique}").status_code == 204
        assert client.delete(f"/v1/documents/d-{unique}").status_code == 204
        assert client.delete(f"/v1/tools/{name}").status_code == 204
        assert client.delete(f"/v1/tools/{name}").status_code == 404


def test_bad_routing_input_is_a_problem_naming_the_field(live_server: LiveServer, unique: str) -> None:
    with live_server.client() as client:
        sid = client.post("/v1/sessions", json={}).json()["id"]
        cases = [
            ("post", f"/v1/sessions/{sid}/route", {"query": ""}, 422, "query"),
            ("post", f"/v1/sessions/{sid}/route", {"query": "hi", "router": "magic"}, 422, "router"),
            ("post", "/v1/sessions/nope/route", {"query": "hi"}, 404, None),
            ("post", "/v1/sessions", {"id": "bad id!"}, 422, "id"),
            ("put", "/v1/tools/t1", {"name": "t1", "description": "d", "parameters": {"type": 5}}, 422, "parameters"),
            ("put", "/v1/tools/t1", {"name": "t2", "description": "d"}, 422, "name"),
            ("put", "/v1/tools/1bad", {"description": "d"}, 422, "name"),
            ("put", "/v1/tools/t1", {"description": "d", "examples": [""]}, 422, "examples.0"),
            ("post", f"/v1/sessions/{sid}/tool-outcomes", {"tool": "ghost", "success": True}, 404, None),
            ("post", "/v1/documents", {"documents": [{"text": ""}]}, 422, "documents.0.text"),
            ("post", "/v1/documents", [{"text": "a bare list"}], 422, "body"),
            ("put", "/v1/documents/d1", {"id": "d2", "text": "t"}, 422, "id"),
            ("put", "/v1/documents/d1", {"text": "t", "doc_type": "Bad Type"}, 422, "doc_type"),
            ("post", f"/v1/sessions/{sid}/route-feedback", {"decision_id": "nope", "correct": True}, 404, None),
            ("post", f"/v1/sessions/{sid}/route-feedback", {"decision_id": "d"}, 422, "correct"),
            (
                "post",
                f"/v1/sessions/{sid}/route-feedback",
                {"decision_id": "d", "correct": False, "expected_decision": "MAYBE"},
                422,
                "expected_decision",
            ),
        ]
        for method, path, body, status, field in cases:
            response = client.request(method, path, json=body)
            assert response.status_code == status, (path, body, response.text)
            assert response.headers["content-type"].startswith(PROBLEM)
            if field:
                assert field in str(response.json()), response.json()
        assert client.post("/v1/sessions", json={"id": f"dup-{unique}"}).status_code == 201
        assert client.post("/v1/sessions", json={"id": f"dup-{unique}"}).status_code == 409


def test_route_feedback_is_recorded_on_the_decision(live_server: LiveServer) -> None:
    with live_server.client() as client:
        sid = client.post("/v1/sessions", json={}).json()["id"]
        routed = client.post(f"/v1/sessions/{sid}/route", json={"query": "Thanks, that helps!"}).json()
        body = {"decision_id": routed["decision_id"], "correct": False, "expected_decision": "RETRIEVE", "note": "x"}
        rated = client.post(f"/v1/sessions/{sid}/route-feedback", json=body)
        assert rated.status_code == 200 and rated.json()["outcome"] == "incorrect"
        record = client.get(f"/v1/decisions/{routed['decision_id']}").json()
        assert record["outcome"] == "incorrect"
        assert record["attributes"]["route_feedback"]["expected_decision"] == "RETRIEVE"
        other = client.post("/v1/sessions", json={}).json()["id"]  # another session's decision: says whose
        elsewhere = client.post(f"/v1/sessions/{other}/route-feedback", json=body)
        assert (elsewhere.status_code, elsewhere.json()["field"]) == (422, "decision_id")
        assert f"is of session '{sid}', not of '{other}'" in elsewhere.json()["detail"]


def test_replay_over_http(live_server: LiveServer) -> None:
    with live_server.client() as client:
        report = client.post("/v1/replay", json={"decision_point": "routing", "parameter": "cascade_threshold",
                                                 "value": 0.5})  # fmt: skip
        assert report.status_code == 200 and report.json()["value"] == 0.5
        refused = client.post("/v1/replay", json={"decision_point": "routing", "parameter": "cascade_threshold",
                                                  "value": 2})  # fmt: skip
        assert refused.status_code == 422 and refused.json()["errors"][0]["field"] == "value"


def test_the_band_thresholds_are_replayed_tuned_and_applied_over_http(live_server: LiveServer) -> None:
    """Issue 25 for seed 002's bands: a rated turn, replayed at another low threshold, then the
    threshold applied: the next turn is decided with it, and a reset restores the configured one."""
    with live_server.client() as client:
        lead = {"email": "a@b.c", "name": "Ann", "company": "Acme", "status": "customer"}
        sid = client.post("/v1/sessions", json={"lead_context": lead}).json()["id"]
        routed = client.post(f"/v1/sessions/{sid}/route", json={"query": "Thanks, that helps!"}).json()
        assert routed["decision"] == "REASON_ONLY" and routed["band"] == "high", routed
        rated = {"decision_id": routed["decision_id"], "correct": True}
        assert client.post(f"/v1/sessions/{sid}/route-feedback", json=rated).status_code == 200
        ask = {"decision_point": "routing", "parameter": "low_threshold", "value": 0.999}
        above = client.post("/v1/replay", json=ask)  # above the high threshold: Apply would refuse it
        assert above.status_code == 422 and "must not be above routing.high_threshold" in above.json()["detail"]
        report = client.post("/v1/replay", json=ask | {"value": 0.75}).json()
        assert report["current"] == 0.5 and report["decisions"] >= 1
        assert report["handoffs_logged"] is not None and report["llm_calls_replayed"] == report["llm_calls_logged"]
        tuned = client.post("/v1/replay/tune", json={"decision_point": "routing", "parameter": "low_threshold"})
        assert tuned.status_code == 200 and tuned.json()["parameter"] == "low_threshold"
        refused = client.put("/v1/settings/routing.low_threshold", json={"value": 0.9})
        assert refused.status_code == 422 and "routing.high_threshold" in refused.json()["detail"]
        assert refused.json()["errors"][0] == {
            "field": "value",
            "in": "body",
            "message": refused.json()["errors"][0]["message"],
        }
        try:
            assert client.put("/v1/settings/routing.high_threshold", json={"value": 0.999}).status_code == 200
            medium = client.post(f"/v1/sessions/{sid}/route", json={"query": "Thanks, that helps!"}).json()
            assert medium["band"] == "medium"
            record = client.get(f"/v1/decisions/{medium['decision_id']}").json()
            assert record["attributes"]["bands"]["high"] == 0.999
        finally:
            client.put("/v1/settings/routing.high_threshold", json={"value": None})
        again = client.post(f"/v1/sessions/{sid}/route", json={"query": "Thanks, that helps!"}).json()
        assert again["band"] == "high"

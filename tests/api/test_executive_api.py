"""The executive over real HTTP: decide, read the decision, give feedback, the report, and refusals."""

from __future__ import annotations

from tests.api.conftest import OTHER_KEY, LiveServer

PROBLEM = "application/problem+json"


def test_decide_read_rate_and_report(live_server: LiveServer, unique: str) -> None:
    condition = f"the garage door {unique} was left open at night"
    with live_server.client() as client:
        heuristic = client.post(
            "/v1/heuristics",
            json={"condition_text": condition, "action_text": "close the garage door", "confidence": 0.9},
        ).json()
        decided = client.post("/v1/events/decide", json={"text": condition, "event_id": f"ev-{unique}"})
        assert decided.status_code == 200, decided.text
        decision = decided.json()
        assert decision["decision_path"] == "heuristic" and decision["accepted"] is True
        assert decision["matched_heuristic_id"] == heuristic["id"] and decision["strategy"] == "heuristic_first"

        record = client.get(f"/v1/decisions/{decision['response_id']}").json()
        assert record["subject_id"] == f"ev-{unique}" and record["kind"] == "executive"

        rated = client.post("/v1/feedback", json={"response_id": decision["response_id"], "rating": "negative"})
        assert rated.status_code == 200 and rated.json()["effect"] == "updated"
        lowered = rated.json()["new_confidence"]
        # seed 001 F-11: the last explicit click wins — the negative is taken back, the positive applied
        changed = client.post("/v1/feedback", json={"response_id": decision["response_id"], "rating": "positive"})
        assert changed.status_code == 200 and changed.json()["old_confidence"] == lowered
        assert changed.json()["new_confidence"] > heuristic["confidence"] > lowered
        again = client.post("/v1/feedback", json={"response_id": decision["response_id"], "rating": "positive"})
        assert again.status_code == 409 and again.headers["content-type"] == PROBLEM
        assert again.json()["errors"][0]["field"] == "rating"

        report = {r["strategy"]: r for r in client.get("/v1/executive/report").json()["strategies"]}
        assert report["heuristic_first"]["positive"] >= 1

    with live_server.client(OTHER_KEY) as other:
        assert other.get(f"/v1/decisions/{decision['response_id']}").status_code == 404
        foreign = other.post("/v1/feedback", json={"response_id": decision["response_id"], "rating": "positive"})
        assert foreign.status_code == 404


def test_without_an_llm_an_unmatched_event_is_rejected_not_failed(live_server: LiveServer, unique: str) -> None:
    with live_server.client() as client:
        decision = client.post("/v1/events/decide", json={"text": f"nothing matches {unique}"}).json()
        record = client.get(f"/v1/decisions/{decision['response_id']}").json()
        listed = client.get("/v1/decisions", params={"subject_id": record["subject_id"]}).json()["items"]
    assert decision["decision_path"] == "rejected" and decision["reason"] == "llm_unavailable"
    said = "did nothing: no heuristic matched, and no LLM is configured"
    assert record["explanation"] == said and [r["explanation"] for r in listed] == [said]  # issue 52: in words


def test_bad_input_is_a_problem_naming_the_field(live_server: LiveServer) -> None:
    cases = [
        ({"text": ""}, "text"),
        ({"text": "x" * 5000}, "text"),
        ({"text": "ok", "salience": {"threat": 3}}, "salience"),
        ({"text": "ok", "urgency": -1}, "urgency"),
        ({"text": "ok", "strategy": "psychic"}, "strategy"),
        ({"text": "ok", "immediate": "yes"}, "immediate"),  # issue 52: a string is not a yes
        ({"text": "ok", "immediate": 1}, "immediate"),
    ]
    with live_server.client() as client:
        before = len(client.get("/v1/decisions", params={"limit": 1000}).json()["items"])
        for body, field in cases:
            response = client.post("/v1/events/decide", json=body)
            assert response.status_code == 422 and response.headers["content-type"] == PROBLEM, body
            assert field in response.json()["errors"][0]["field"], response.json()
        assert len(client.get("/v1/decisions", params={"limit": 1000}).json()["items"]) == before
        missing = client.post("/v1/feedback", json={"response_id": "nope", "rating": "positive"})
        assert missing.status_code == 404
        both = client.post("/v1/feedback", json={"response_id": "nope", "rating": "positive", "dev_score": 4})
        assert both.status_code == 422


def test_replay_and_tune_the_heuristic_threshold_over_http(live_server: LiveServer, unique: str) -> None:
    condition = f"the shed {unique} light is still on"
    with live_server.client() as client:
        heuristic = client.post(
            "/v1/heuristics", json={"condition_text": condition, "action_text": "switch it off", "confidence": 0.75}
        ).json()
        decision = client.post("/v1/events/decide", json={"text": condition}).json()
        assert decision["matched_heuristic_id"] == heuristic["id"]
        client.post("/v1/feedback", json={"response_id": decision["response_id"], "rating": "positive"})

        replayed = client.post("/v1/replay", json={"decision_point": "executive", "value": 0.8})
        assert replayed.status_code == 200, replayed.text
        report = replayed.json()
        assert report["parameter"] == "heuristic_threshold" and report["current"] == 0.7
        # at 0.8 this 0.75 heuristic would not have fired
        mine = [c for c in report["changes"] if heuristic["id"][:8] in c["logged"]]
        assert mine and mine[0]["replayed"].startswith("no heuristic")

        tuned = client.post("/v1/replay/tune", json={"decision_point": "executive", "days": 1})
        assert tuned.status_code == 200, tuned.text
        body = tuned.json()
        assert body["proposed"] in [row["value"] for row in body["rows"] if row["eligible"]]

        for bad, field in (
            ({"decision_point": "executive", "parameter": "cascade_threshold", "value": 0.5}, "parameter"),
            ({"decision_point": "elsewhere", "value": 0.5}, "decision_point"),
            ({"decision_point": "admission", "value": 1.5}, "value"),
        ):
            refused = client.post("/v1/replay", json=bad)
            assert refused.status_code == 422 and refused.json()["errors"][0]["field"] == field, refused.text
        refused = client.post("/v1/replay/tune", json={"decision_point": "executive", "min_coverage": 2})
        assert refused.status_code == 422 and refused.json()["errors"][0]["field"] == "min_coverage"

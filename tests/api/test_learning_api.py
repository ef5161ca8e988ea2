"""Learning over real HTTP: fires, observed events, feedback on a fire, history, and refusals."""

from __future__ import annotations

from tests.api.conftest import OTHER_KEY, LiveServer

PROBLEM = "application/problem+json"


def test_fire_undo_rate_and_history(live_server: LiveServer, unique: str) -> None:
    with live_server.client() as client:
        heuristic = client.post(
            "/v1/heuristics", json={"condition_text": f"dark {unique}", "action_text": "lights on", "confidence": 0.6}
        ).json()
        hid = heuristic["id"]
        fire = client.post(f"/v1/heuristics/{hid}/fires", json={"event_id": f"e1-{unique}", "source": unique})
        assert fire.status_code == 201 and fire.json()["heuristic_id"] == hid

        undo = client.post("/v1/events/observe", json={"event_id": f"e2-{unique}", "text": "undo!", "source": unique})
        assert undo.status_code == 200 and undo.json()["undo"] is True
        assert [s["source"] for s in undo.json()["signals"]] == ["implicit_undo"]

        second = client.post(f"/v1/heuristics/{hid}/fires", json={"event_id": f"e3-{unique}", "source": unique}).json()
        rated = client.post("/v1/feedback", json={"response_id": second["id"], "dev_score": 5})
        assert rated.status_code == 200 and rated.json()["effect"] == "updated"

        page = client.get(f"/v1/heuristics/{hid}/history").json()
        assert (page["total"], page["offset"], page["limit"]) == (2, 0, 1000)
        newest, oldest = page["items"]  # newest first
        assert [(h["source"], h["positive"]) for h in (oldest, newest)] == [("implicit_undo", False), ("dev", True)]
        assert oldest["old_confidence"] == 0.6 and newest["old_confidence"] == oldest["new_confidence"]
        further = client.get(f"/v1/heuristics/{hid}/history", params={"limit": 1, "offset": 1}).json()
        assert (further["items"], further["total"]) == ([oldest], 2)

    with live_server.client(OTHER_KEY) as other:
        assert other.get(f"/v1/heuristics/{hid}/history").status_code == 404
        assert other.post("/v1/feedback", json={"response_id": second["id"], "rating": "positive"}).status_code == 404


def test_the_channel_shows_what_rated_fires_taught_per_tenant(live_server: LiveServer, unique: str) -> None:
    with live_server.client() as client:
        before = {row["outcome"]: row for row in client.get("/v1/learning/channel").json()["outcomes"]}
        hid = client.post("/v1/heuristics", json={"condition_text": f"c {unique}", "action_text": "a"}).json()["id"]
        fire = client.post(f"/v1/heuristics/{hid}/fires", json={"event_id": f"e1-{unique}", "source": unique}).json()
        client.post("/v1/events/observe", json={"event_id": f"e2-{unique}", "text": "undo", "source": unique})
        assert client.post("/v1/feedback", json={"response_id": fire["id"], "rating": "negative"}).status_code == 200

        report = client.get("/v1/learning/channel").json()
        assert report["weighs_outcomes"] is False  # bayesian records it; calibrated weighs by it
        undo = next(row for row in report["outcomes"] if row["outcome"] == "implicit_undo")
        assert undo["rated_not_helped"] == before["implicit_undo"]["rated_not_helped"] + 1
        assert type(undo["rated_not_helped"]) is int  # a count of fires: 1, not 1.0
        assert undo["p_given_not_helped"] > undo["p_given_helped"] and undo["helped_share_at_half"] < 0.5

    with live_server.client(OTHER_KEY) as other:
        rows = other.get("/v1/learning/channel").json()["outcomes"]
        assert all(row["rated_helped"] == row["rated_not_helped"] == 0 for row in rows)


def test_bad_learning_input_is_a_problem_naming_the_field(live_server: LiveServer, unique: str) -> None:
    with live_server.client() as client:
        hid = client.post("/v1/heuristics", json={"condition_text": f"c {unique}", "action_text": "a"}).json()["id"]
        cases = [
            ("/v1/heuristics/nope/fires", {"event_id": "e"}, 404, None),
            (f"/v1/heuristics/{hid}/fires", {"event_id": "e", "fired_at": "2999-01-01T00:00:00Z"}, 422, "fired_at"),
            (f"/v1/heuristics/{hid}/fires", {"event_id": "e", "fired_at": "2020-01-01T00:00:00"}, 422, "fired_at"),
            (f"/v1/heuristics/{hid}/fires", {}, 422, "event_id"),
            ("/v1/events/observe", {"event_id": "e", "text": ""}, 422, "text"),
            ("/v1/feedback", {"response_id": "nope", "rating": "positive"}, 404, None),
            ("/v1/feedback", {"response_id": "x", "user_score": 4}, 422, "user_score"),
        ]
        for path, body, status, field in cases:
            response = client.post(path, json=body)
            assert response.status_code == status, (path, body, response.text)
            assert response.headers["content-type"] == PROBLEM
            if field is not None:
                assert response.json()["field"] == field
        assert client.get(f"/v1/heuristics/{hid}").json()["fire_count"] == 0

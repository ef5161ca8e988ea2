"""Proactive messages over real HTTP: users, signals, a cycle, the reply, feedback; refusals."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.engine import Engine
from phronesis.server import create_app
from phronesis.settings import Settings
from tests.api.conftest import OTHER_KEY, LiveServer
from tests.loopback import serving_app

PROBLEM = "application/problem+json"
OLD_FRIEND = {
    "created_at": "2025-01-01T00:00:00Z",
    "interaction_count": 500,
    "timezone": "UTC",
    "sleep_time": "00:00",
    "wake_time": "00:00",
}


def signal(key: str, urgency: int = 9) -> dict[str, object]:
    due = (datetime.now(UTC) + timedelta(minutes=40)).isoformat()
    return {
        "type": "deadline_approaching",
        "urgency_hint": urgency,
        "data": {"title": f"Essay {key}", "due": due},
        "dedup_key": key,
    }


def test_a_user_gets_a_message_replies_and_the_feedback_is_recorded(live_server: LiveServer, unique: str) -> None:
    user = f"ana-{unique}"
    with live_server.client() as client:
        created = client.put(f"/v1/users/{user}", json=OLD_FRIEND)
        assert created.status_code == 201 and created.json()["trust_level"] == "deep"
        assert client.put(f"/v1/users/{user}", json=OLD_FRIEND).status_code == 200
        stored = client.post(f"/v1/users/{user}/signals", json={"signals": [signal("a"), signal("a")]})
        assert stored.status_code == 201 and stored.json()["duplicates"] == 1
        again = client.post(f"/v1/users/{user}/signals", json={"signals": [signal("a", urgency=8)]}).json()
        assert (again["stored"], again["duplicates"], again["updated"]) == ([], 1, 1)  # the pending one took it
        cycle = client.post("/v1/proactive/cycles", json={"user_id": user}).json()
        assert (cycle["decision"], cycle["reason"], cycle["channel"]) == ("sent", "sent", "console")
        assert client.get(f"/v1/users/{user}/signals", params={"pending": True}).json()["items"] == []
        reply = client.post(f"/v1/users/{user}/messages", json={"text": "thanks!"}).json()
        assert [f["outcome"] for f in reply["feedback"]] == ["engaged"]
        summary = client.get(f"/v1/users/{user}/feedback-summary").json()
        assert (summary["total_sent"], summary["engagement_rate"]) == (1, 1.0)
        feedback = client.get("/v1/proactive/feedback", params={"user_id": user, "outcome": "engaged"}).json()["items"]
        assert [f["id"] for f in feedback] == [cycle["send_id"]]
        audit = client.get(f"/v1/decisions/{cycle['decision_id']}").json()
        assert (audit["kind"], audit["action"], audit["subject_id"]) == ("proactive", "sent", user)
        tick = client.post("/v1/proactive/cycles", json={}).json()
        assert "users" in tick and "decided_without_llm" in tick
    with live_server.client(OTHER_KEY) as other:
        assert other.get(f"/v1/users/{user}").status_code == 404
        assert other.post("/v1/proactive/cycles", json={"user_id": user}).status_code == 404


def test_bad_input_gets_problem_details_naming_the_field(live_server: LiveServer, unique: str) -> None:
    user = f"bad-{unique}"
    with live_server.client() as client:
        cases = [
            (f"/v1/users/{user}", "put", {"timezone": "Mars/Olympus"}, "timezone"),
            (f"/v1/users/{user}", "put", {"wake_time": "25:00"}, "wake_time"),
            (f"/v1/users/{user}", "put", {"interaction_count": 2**64}, "interaction_count"),
            (f"/v1/users/{user}", "put", {"channel": "pigeon"}, "channel"),
            # issue 20: the server must not fetch or post into its own network for a user
            (f"/v1/users/{user}", "put", {"calendar_url": "http://169.254.169.254/latest/"}, "calendar_url"),
            (f"/v1/users/{user}", "put", {"calendar_url": "http://localhost:5432/x.ics"}, "calendar_url"),
            (f"/v1/users/{user}", "put", {"channel": "webhook", "address": "http://10.0.0.7/hook"}, "address"),
            # however the address is spelled (found by a fresh-clone trial)
            (f"/v1/users/{user}", "put", {"channel": "webhook", "address": "HTTP://10.0.0.7/hook"}, "address"),
            (f"/v1/users/{user}", "put", {"channel": "webhook", "address": " http://10.0.0.7/hook"}, "address"),
            (f"/v1/users/{user}", "put", {"channel": "webhook", "address": "10.0.0.7"}, "address"),
            (f"/v1/users/{user}", "put", {"channel": "webhook", "address": "gopher://127.0.0.1:6379/_x"}, "address"),
            (f"/v1/users/{user}", "put", {"address": "ftp://x"}, "address"),
            (f"/v1/users/{user}", "put", {"calendar_url": "HTTP://127.0.0.1/x.ics"}, "calendar_url"),
        ]
        for path, method, body, field in cases:
            response = client.request(method, path, json=body)
            assert response.status_code == 422 and response.headers["content-type"].startswith(PROBLEM)
            assert response.json()["field"] == field
        assert client.post(f"/v1/users/{user}/signals", json={"signals": [signal("x")]}).status_code == 404
        client.put(f"/v1/users/{user}", json={})
        refused = client.post(f"/v1/users/{user}/signals", json={"signals": [signal("y"), signal("z", urgency=11)]})
        assert refused.status_code == 422 and "signals.1.urgency_hint" in refused.text
        assert client.get(f"/v1/users/{user}/signals").json()["total"] == 0  # nothing written
        # a trial's loose values: true re-posted as urgency 1, a number read as 1970
        loose = [
            (f"/v1/users/{user}/signals", "post", {"signals": [signal("b") | {"urgency_hint": True}]}, "signals.0"),
            (f"/v1/users/{user}/signals", "post", {"signals": [signal("b") | {"urgency_hint": "8"}]}, "signals.0"),
            (f"/v1/users/{user}/signals", "post", {"signals": [signal("b") | {"context_only": "yes"}]}, "signals.0"),
            (f"/v1/users/{user}/signals", "post", {"signals": [signal("b") | {"expires_at": 99999}]}, "signals.0"),
            (f"/v1/users/{user}/mute", "put", {"minutes": True}, "minutes"),
            ("/v1/proactive/preview", "post", {"user_id": user, "at": 12345}, "at"),
            ("/v1/proactive/preview", "post", {"user_id": user, "at": "12345"}, "at"),
            (f"/v1/users/{user}", "put", {"interaction_count": "5"}, "interaction_count"),
            (f"/v1/users/{user}/messages", "post", {"button_id": "btn_maybe"}, "button_id"),
        ]
        for path, method, body, field in loose:
            response = client.request(method, path, json=body)
            assert response.status_code == 422 and response.json()["field"].startswith(field), (body, response.text)
        assert client.get(f"/v1/users/{user}/signals").json()["total"] == 0
        assert client.post("/v1/proactive/cycles", json={"user_id": "no/such"}).status_code == 422
        assert client.delete(f"/v1/users/{user}").status_code == 204
        assert client.get(f"/v1/users/{user}").status_code == 404


def test_the_embedded_scheduler_runs_cycles_on_its_own(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path,
        embeddings={"spec": "hashing:384"},
        api={"dev_mode": True},
        proactive={"cycle_minutes": 0.01},
    )
    engine = Engine(settings, embedder=HashingEmbedder(384), llm=None)
    with (
        serving_app(create_app(engine, close_engine=True)) as base_url,
        httpx.Client(base_url=base_url, timeout=10) as client,
    ):
        client.put("/v1/users/ana", json=OLD_FRIEND).raise_for_status()
        client.post("/v1/users/ana/signals", json={"signals": [signal("s")]}).raise_for_status()
        sent: list[object] = []
        deadline = time.monotonic() + 20
        while not sent and time.monotonic() < deadline:
            time.sleep(0.1)
            sent = client.get("/v1/proactive/feedback", params={"user_id": "ana"}).json()["items"]
        assert len(sent) == 1


def test_users_opt_out_mute_and_the_tenant_pauses_over_http(live_server: LiveServer, unique: str) -> None:
    """Issue 24, item 9: the controls over HTTP, and a reply that asks to stop."""
    user = f"opt-{unique}"
    with live_server.client() as client:
        client.put(f"/v1/users/{user}", json=OLD_FRIEND)
        reply = client.post(f"/v1/users/{user}/messages", json={"text": "unsubscribe"}).json()
        everything = {"all": True, "categories": [], "topics": [], "until": None}
        assert (reply["intent"], reply["opted_out"]) == ("opt_out", everything)
        client.post(f"/v1/users/{user}/signals", json={"signals": [signal("o")]})
        cycle = client.post("/v1/proactive/cycles", json={"user_id": user}).json()
        assert (cycle["decision"], cycle["reason"]) == ("silent", "opted_out")
        opted_in = client.post(f"/v1/users/{user}/opt-in", json={}).json()
        assert opted_in["opted_out"] is False
        partial = client.post(f"/v1/users/{user}/opt-out", json={"categories": ["deadline_warning"]}).json()
        assert (partial["opted_out"], partial["opted_out_categories"]) == (False, ["deadline_warning"])
        assert client.post("/v1/proactive/cycles", json={"user_id": user}).json()["reason"] == "opted_out"
        client.post(f"/v1/users/{user}/opt-in", json={"categories": ["deadline_warning"]})
        muted = client.put(f"/v1/users/{user}/mute", json={"minutes": 30}).json()
        assert muted["muted_until"] is not None
        assert client.post("/v1/proactive/cycles", json={"user_id": user}).json()["reason"] == "muted"
        assert client.delete(f"/v1/users/{user}/mute").json()["muted_until"] is None
        paused = client.put("/v1/proactive/pause", json={"paused": True, "reason": "incident 7"}).json()
        assert (paused["paused"], paused["reason"]) == (True, "incident 7")
        assert client.post("/v1/proactive/cycles", json={"user_id": user}).json()["reason"] == "paused"
        assert client.get("/v1/proactive/pause").json()["paused"] is True
        client.put("/v1/proactive/pause", json={"paused": False})
        client.post(f"/v1/users/{user}/signals", json={"signals": [signal("p")]})  # the opted-out cycle used "o"
        assert client.post("/v1/proactive/cycles", json={"user_id": user}).json()["decision"] == "sent"
        for method, path, body, field in (
            ("post", f"/v1/users/{user}/opt-out", {"categories": ["spam_offers"]}, "categories"),
            ("put", f"/v1/users/{user}/mute", {"minutes": -5}, "minutes"),
            ("put", f"/v1/users/{user}/mute", {"until": "2026-01-01T00:00:00"}, "until"),
            ("put", "/v1/proactive/pause", {"paused": "maybe"}, "paused"),
        ):
            refused = client.request(method, path, json=body)
            assert refused.status_code == 422 and refused.headers["content-type"].startswith(PROBLEM), refused.text
            assert refused.json()["field"] == field, refused.json()
        neither = client.put(f"/v1/users/{user}/mute", json={})
        assert neither.status_code == 422 and "exactly one" in neither.text
        assert client.post(f"/v1/users/nobody-{unique}/opt-out", json={}).status_code == 404
    with live_server.client(OTHER_KEY) as other:
        assert other.get("/v1/proactive/pause").json()["paused"] is False  # one tenant's switch


def test_preview_timeline_stats_and_metrics_over_http(live_server: LiveServer, unique: str) -> None:
    """Issue 24, items 10 and 11: a dry run, a user's story, the counters, /metrics."""
    user = f"why-{unique}"
    with live_server.client() as client:
        client.put(f"/v1/users/{user}", json=OLD_FRIEND)
        client.post(f"/v1/users/{user}/signals", json={"signals": [signal("w")]})
        preview = client.post("/v1/proactive/preview", json={"user_id": user, "llm": False}).json()
        assert (preview["decision"], preview["category"]) == ("would_send", "deadline_warning")
        assert client.get(f"/v1/users/{user}/signals", params={"pending": True}).json()["total"] == 1  # unused
        cycle = client.post("/v1/proactive/cycles", json={"user_id": user}).json()
        assert cycle["message"] == preview["message"]
        timeline = client.get(f"/v1/users/{user}/timeline", params={"days": 1}).json()
        assert timeline["now"]["reason"] == "no_signals"
        kinds = {e["kind"] for e in timeline["events"]} - {"pause", "resume"}  # the tenant's, by another test
        assert kinds == {"signal", "signal_used", "cycle", "send"}
        stats = client.get("/v1/proactive/stats").json()
        assert sum(day.get("cycle:sent", 0) for day in stats.values()) >= 1
        metrics = client.get("/metrics").text
        assert 'phronesis_proactive_events{name="cycle:sent"}' in metrics
        for method, path, body, field in (
            ("post", "/v1/proactive/preview", {"user_id": user, "at": "tomorrow"}, "at"),
            ("post", "/v1/proactive/preview", {}, "user_id"),
            ("get", f"/v1/users/{user}/timeline?days=0", None, "days"),
        ):
            refused = client.request(method, path, json=body)
            assert refused.status_code == 422 and refused.json()["field"] == field, refused.text
        assert client.post("/v1/proactive/preview", json={"user_id": f"no-{unique}"}).status_code == 404
        assert client.get(f"/v1/users/no-{unique}/timeline").status_code == 404

"""A tenant's applied settings over HTTP (issue 25's Apply), changed from another process."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.api.conftest import OTHER_KEY, LiveServer

NAME = "executive.heuristic_threshold"


def _cli(server: LiveServer, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI as a process of its own on the server's database."""
    env = os.environ | {
        "PHRONESIS_DATA_DIR": str(server.engine.settings.data_dir),
        "PHRONESIS_EMBEDDINGS__SPEC": "hashing:384",
    }
    return subprocess.run(
        [sys.executable, "-m", "phronesis", *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.process
def test_a_threshold_set_by_the_cli_holds_for_the_servers_next_decision(own_server: LiveServer, unique: str) -> None:
    condition = f"the attic {unique} window is open"
    with own_server.client() as client:
        client.post(
            "/v1/heuristics", json={"condition_text": condition, "action_text": "close it", "confidence": 0.65}
        ).raise_for_status()
        before = client.post("/v1/events/decide", json={"text": condition}).json()
        assert before["decision_path"] == "rejected"  # 0.65 is under the configured 0.7

        note = "replayed: fires more"
        done = _cli(own_server, "settings", "set", NAME, "0.6", "--note", note, "--tenant", "tenant-a")
        assert done.returncode == 0, done.stderr
        after = client.post("/v1/events/decide", json={"text": condition}).json()
        assert after["decision_path"] == "heuristic", after

        listed = {s["name"]: s for s in client.get("/v1/settings").json()["items"]}
        assert (listed[NAME]["value"], listed[NAME]["configured"]) == (0.6, 0.7)
        assert client.get(f"/v1/settings/{NAME}").json() == listed[NAME]
        unknown = client.get("/v1/settings/executive.nonsense")
        assert unknown.status_code == 422 and unknown.json()["errors"][0]["field"] == "name", unknown.text
        change = client.get(f"/v1/decisions/{listed[NAME]['decision_id']}").json()
        assert (change["kind"], change["inputs"]["new"], change["reason"]) == ("setting", 0.6, note)

        for path, body, field in (
            (f"/v1/settings/{NAME}", {"value": 2}, "value"),
            (f"/v1/settings/{NAME}", {"value": 0.1}, "value"),  # seed 000 clamps it: decisions would use 0.3
            (f"/v1/settings/{NAME}", {"value": True}, "value"),  # not 1.0
            (f"/v1/settings/{NAME}", {}, "value"),
            ("/v1/settings/executive.nonsense", {"value": 0.5}, "name"),
        ):
            refused = client.put(path, json=body)
            assert refused.status_code == 422 and refused.json()["errors"][0]["field"] == field, refused.text

        reset = client.put(f"/v1/settings/{NAME}", json={"value": None, "note": "back"})
        assert reset.status_code == 200 and reset.json()["value"] == 0.7
        assert client.post("/v1/events/decide", json={"text": condition}).json()["decision_path"] == "rejected"

    with own_server.client(OTHER_KEY) as other:  # another tenant never saw the change
        assert {s["name"]: s["applied"] for s in other.get("/v1/settings").json()["items"]}[NAME] is None


def test_a_default_personality_bias_holds_only_for_events_without_their_own(
    own_server: LiveServer, unique: str
) -> None:
    """Seed 000 F-24: the tenant's ``executive.personality_bias`` is the bias of an event that
    carries none; each record says which it took, which a replay of the default needs."""
    condition = f"the cellar {unique} light is on"
    with own_server.client() as client:
        client.post(
            "/v1/heuristics", json={"condition_text": condition, "action_text": "switch it off", "confidence": 0.65}
        ).raise_for_status()
        applied = client.put("/v1/settings/executive.personality_bias", json={"value": -0.1, "note": "bolder"})
        assert applied.status_code == 200 and applied.json()["value"] == -0.1, applied.text

        plain = client.post("/v1/events/decide", json={"text": condition}).json()
        assert plain["decision_path"] == "heuristic", plain  # 0.7 − 0.1 = 0.6 ≤ 0.65
        own = client.post(
            "/v1/events/decide", json={"text": condition, "personality_biases": {"confidence_threshold": 0.0}}
        ).json()
        assert own["decision_path"] == "rejected", own  # its own bias: 0.7 > 0.65

        inputs = {
            d["id"]: d["inputs"] for d in client.get("/v1/decisions", params={"kind": "executive"}).json()["items"]
        }
        took = inputs[plain["response_id"]]
        assert (took["bias_source"], took["personality_biases"], took["base_threshold"]) == (
            "default",
            {"confidence_threshold": -0.1},
            0.7,
        )
        assert inputs[own["response_id"]]["bias_source"] == "event"
        refused = client.put("/v1/settings/executive.personality_bias", json={"value": 0.6})
        assert refused.status_code == 422 and refused.json()["errors"][0]["field"] == "value"


@pytest.mark.process
def test_a_strategy_set_by_the_cli_decides_the_servers_next_event_and_replays_by_name(
    own_server: LiveServer, unique: str
) -> None:
    """``executive.strategy`` (issue 25: Apply of a replayed strategy) holds a name: set by the CLI
    in a process of its own, the running server's next event is decided by it; a replay and a
    tune over HTTP take and give strategy names; a name where a number belongs, or an unknown
    one, is a 422 naming ``value``, and nothing changes."""
    condition = f"the shed {unique} door is open"
    strategy = "executive.strategy"
    with own_server.client() as client:
        client.post(
            "/v1/heuristics", json={"condition_text": condition, "action_text": "close it", "confidence": 0.9}
        ).raise_for_status()
        first = client.post("/v1/events/decide", json={"text": condition}).json()
        assert (first["strategy"], first["decision_path"]) == ("heuristic_first", "heuristic")
        try:
            done = _cli(own_server, "settings", "set", strategy, "always_llm", "--tenant", "tenant-a")
            assert done.returncode == 0 and "executive.strategy = always_llm  applied" in done.stdout, done.stderr
            second = client.post("/v1/events/decide", json={"text": condition}).json()
            # the baseline never fires; with no LLM on this server, rejected, and saying why
            assert (second["strategy"], second["decision_path"], second["reason"]) == (
                "always_llm",
                "rejected",
                "llm_unavailable",
            )
            record = client.get(f"/v1/decisions/{second['response_id']}").json()
            assert record["attributes"]["strategy_source"] == "tenant"

            body = {"decision_point": "executive", "parameter": "strategy", "value": "heuristic_first", "days": 1}
            report = client.post("/v1/replay", json=body).json()
            assert (report["current"], report["value"]) == ("always_llm", "heuristic_first"), report
            assert report["changed"] >= 1
            tuned = client.post("/v1/replay/tune", json={"decision_point": "executive", "parameter": "strategy"})
            assert [row["value"] for row in tuned.json()["rows"]] == ["heuristic_first", "always_llm", "urgency_tiered"]

            for path, sent in (
                (f"/v1/settings/{strategy}", {"value": "fastest"}),
                (f"/v1/settings/{strategy}", {"value": 0.5}),
                (f"/v1/settings/{NAME}", {"value": "always_llm"}),
                ("/v1/replay", body | {"value": "fastest"}),
                ("/v1/replay", body | {"parameter": "heuristic_threshold", "value": "high"}),
            ):
                refused = client.request("PUT" if "settings" in path else "POST", path, json=sent)
                assert refused.status_code == 422 and refused.json()["errors"][0]["field"] == "value", refused.text
            assert client.get(f"/v1/settings/{strategy}").json()["value"] == "always_llm"
        finally:
            reset = client.put(f"/v1/settings/{strategy}", json={"value": None})
        assert reset.status_code == 200 and reset.json()["value"] == "heuristic_first", reset.text
        third = client.post("/v1/events/decide", json={"text": condition}).json()
        assert (third["strategy"], third["decision_path"]) == ("heuristic_first", "heuristic")

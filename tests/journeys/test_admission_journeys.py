"""An agent's month of runs in one scope (seed 003), through a real server with the real sentence
model, no LLM: the rule judge decides, as a fresh install does. The operator's CLI (another
process, the same database) calibrates the duplicate decision, from a file and from feedback."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.journeys.conftest import Journeys, Tenant, start
from tests.processes import cli

# a real server with the real sentence model
pytestmark = [pytest.mark.journey, pytest.mark.model, pytest.mark.process]

CALIBRATION_CACHE_S = 0.5
"""How long the server keeps a calibration before it reads the database again."""


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Journeys]:
    yield from start(
        tmp_path_factory.mktemp("admission"),
        PHRONESIS_LLM__SPEC="none",
        PHRONESIS_ADMISSION__CALIBRATION_CACHE_SEC=str(CALIBRATION_CACHE_S),
    )


class Agent:
    """An ETL agent reporting its finished runs."""

    def __init__(self, tenant: Tenant) -> None:
        self.http = tenant.http

    def admit(self, task: str, outcome: str = "success", **more: Any) -> dict[str, Any]:
        body = {"agent_id": "etl", "task": task, "outcome": outcome} | more
        answer = self.http.post("/v1/runs", json=body)
        assert answer.status_code == 200, answer.text
        result: dict[str, Any] = answer.json()
        return result

    def search(self, query: str, **params: Any) -> list[dict[str, Any]]:
        found = self.http.get("/v1/runs/search", params={"q": query, "agent_id": "etl", "k": 10} | params)
        assert found.status_code == 200, found.text
        hits: list[dict[str, Any]] = found.json()["hits"]
        return hits

    def run(self, run_id: str) -> dict[str, Any]:
        result: dict[str, Any] = self.http.get(f"/v1/runs/{run_id}").json()
        return result

    def post(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        answer = self.http.post(path, json=body)
        assert answer.status_code == 200, answer.text
        result: dict[str, Any] = answer.json()
        return result


@pytest.fixture
def agent(memory: Journeys) -> Agent:
    return Agent(memory.tenant())


STEPS = ["Read orders.csv", "Inferred column types", "Wrote schema.sql"]


def test_a_month_of_runs(agent: Agent) -> None:
    # the same run again, word for word: nothing new to store
    first = agent.admit("Generate the orders schema", steps=STEPS, references=["orders.csv"])
    again = agent.admit("Generate the orders schema", steps=STEPS, references=["orders.csv"])
    assert (first["decision"], again["decision"], again["target_run_id"]) == ("ADD", "NOT", first["run_id"])

    # a failure, then a success of the same task: the success replaces it
    failed = agent.admit("Load the customers table", "failure", steps=["Connected", "Timed out on the insert"])
    loaded = agent.admit("Load the customers table", steps=["Connected", "Inserted 12,000 rows in batches"])
    assert (loaded["decision"], loaded["target_run_id"]) == ("REPLACE", failed["run_id"])
    assert agent.run(failed["run_id"])["status"] == "superseded"

    # a failure and a success whose traces have little in common (0.67 to the model): the same
    # task, so still a REPLACE, and search finds the success only
    denied = agent.admit(
        "Rotate API credentials", "failure", steps=["Vault returned permission denied for path secret/data/api"]
    )
    rotated = agent.admit(
        "Rotate API credentials",
        steps=["Generated new key pair", "Updated the key in the secrets manager", "Restarted the gateway pods"],
        artifacts=["rotation_log.txt"],
    )
    assert (rotated["decision"], rotated["target_run_id"]) == ("REPLACE", denied["run_id"]), rotated["reason"]
    assert [h["run"]["id"] for h in agent.search("rotate API credentials")][:1] == [rotated["run_id"]]

    # a REPLACE taken back: the run it replaced is active again, the replacing run is gone
    stale = agent.admit("Refresh the currency rates", "failure", steps=["Called the rates API", "Got HTTP 503"])
    fresh = agent.admit("Refresh the currency rates", steps=["Called the rates API", "Stored 160 rates"])
    assert (fresh["decision"], fresh["target_run_id"]) == ("REPLACE", stale["run_id"])
    undone = agent.post(f"/v1/memory-decisions/{fresh['decision_id']}/undo")
    assert (undone["deleted_run_id"], undone["restored"]) == (fresh["run_id"], [stale["run_id"]])
    assert agent.run(stale["run_id"])["status"] == "active"
    assert agent.http.get(f"/v1/runs/{fresh['run_id']}").status_code == 404
    rates = [h["run"]["id"] for h in agent.search("Refresh the currency rates")]
    assert stale["run_id"] in rates and fresh["run_id"] not in rates
    record = agent.http.get(f"/v1/decisions/{undone['undo_id']}").json()
    assert (record["action"], record["inputs"]["decision_id"]) == ("UNDO", fresh["decision_id"])

    # two successes with different references: both kept, one group, the newer canonical
    a = agent.admit("Build the revenue report", steps=["Queried sales"], references=["sales.sql"])
    b = agent.admit("Build the revenue report", steps=["Queried the warehouse"], references=["warehouse.sql"])
    assert (b["decision"], b["target_run_id"]) == ("MERGE", a["run_id"])
    hits = [h for h in agent.search("revenue report", min_similarity=-1) if h["group"] is not None]
    assert {h["run"]["id"] for h in hits} == {a["run_id"], b["run_id"]}  # best first (issue 52), both there
    assert [h["similarity"] for h in hits] == sorted((h["similarity"] for h in hits), reverse=True)
    collapsed = agent.search("revenue report", collapse="true", min_similarity=-1)
    assert [h["run"]["id"] for h in collapsed if h["group"] is not None] == [b["run_id"]]  # the canonical

    # invoices that differ only in their numbers are each their own task
    invoices = [
        agent.admit(f"Process invoice {n} for customer {n * 3}", steps=["Matched the PO", "Posted it"])
        for n in range(40, 52)
    ]
    assert Counter(r["decision"] for r in invoices) == {"ADD": 12}

    # the success turns out wrong: deleting it brings the failed run back, searched again
    assert agent.http.delete(f"/v1/runs/{loaded['run_id']}").status_code == 204
    assert agent.run(failed["run_id"])["status"] == "active"
    assert failed["run_id"] in [h["run"]["id"] for h in agent.search("Load the customers table")]
    assert agent.http.get(f"/v1/runs/{loaded['run_id']}").status_code == 404

    # every decision is on the record, including the ones about deleted runs
    decisions = agent.http.get("/v1/memory-decisions", params={"agent_id": "etl", "limit": 100}).json()["items"]
    assert Counter(d["decision"] for d in decisions) == {"ADD": 17, "NOT": 1, "REPLACE": 3, "MERGE": 1}
    assert [d["id"] for d in decisions if d["undone_at"]] == [fresh["decision_id"]]


# Two traces of one task: the sentence model puts them at 0.87, the operator's labelled pairs
# put duplicates at 0.97 and above and other things at 0.35 and below.
TILES = "Connected to the warehouse, refreshed the sales dashboard tiles and published it."
EXTRACTS = "Connected to the warehouse, rebuilt the sales dashboard from the cached extracts and published it."
PAIRS = [
    (1, TILES, "Connected to the warehouse, refreshed every sales dashboard tile and published it."),
    (1, TILES, "Connected to the warehouse and refreshed the sales dashboard tiles, then published it."),
    (1, EXTRACTS, "Connected to the warehouse, rebuilt the sales dashboard from cached extracts and published it."),
    (0, TILES, "Emailed the quarterly report to the finance team."),
    (0, EXTRACTS, "Translated the onboarding guide into French."),
]


def _calibrate(memory: Journeys, tenant: Tenant, *args: str) -> dict[str, Any]:
    """The operator calibrates from the CLI; the server reads it within its cache time."""
    result: dict[str, Any] = json.loads(cli(memory.env, "admission", "calibrate", *args, "--tenant", tenant.name))
    time.sleep(CALIBRATION_CACHE_S * 2)
    return result


def test_feedback_teaches_the_duplicate_decision(memory: Journeys, tmp_path: Path) -> None:
    tenant = memory.tenant()
    agent = Agent(tenant)
    labelled = tmp_path / "pairs.tsv"
    rows = [f"{label}\t{n}a\t{n}b\t{first}\t{second}" for n, (label, first, second) in enumerate(PAIRS)]
    labelled.write_text("label\tid1\tid2\tsentence1\tsentence2\n" + "\n".join(rows) + "\n", encoding="utf-8")
    calibrated = _calibrate(memory, tenant, str(labelled))
    assert 0.35 < calibrated["threshold"] < 0.87 and calibrated["accuracy"] == 1.0

    # the second trace is taken for a duplicate of the first: dropped
    task = "Refresh the sales dashboard"
    tiles = agent.admit(task, summary=TILES)
    extracts = agent.admit(task, summary=EXTRACTS)
    assert (extracts["decision"], extracts["rule"], extracts["target_run_id"]) == (
        "NOT",
        "near_duplicate",
        tiles["run_id"],
    )
    # the user says it was another way to do it, worth keeping
    rated = agent.post(
        f"/v1/memory-decisions/{extracts['decision_id']}/feedback",
        {"correct": False, "expected_decision": "MERGE", "note": "the extracts path works when the warehouse is slow"},
    )
    assert rated["teaches"]["duplicate"] is False and rated["teaches"]["run_id"] == tiles["run_id"]

    refitted = _calibrate(memory, tenant, str(labelled), "--from-feedback")
    assert refitted["feedback_pairs"] == 1 and refitted["threshold"] > 0.87 > calibrated["threshold"]
    again = agent.admit(task, summary=EXTRACTS)
    assert (again["decision"], again["rule"], again["target_run_id"]) == ("MERGE", "complementary", tiles["run_id"])
    hits = [h["run"]["id"] for h in agent.search("sales dashboard refresh")]
    assert {tiles["run_id"], again["run_id"]} <= set(hits)

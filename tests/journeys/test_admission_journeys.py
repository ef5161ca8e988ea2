"""An agent's month of runs in one scope (seed 003), through a real server with the real sentence
model, no LLM: the rule judge decides, as a fresh install does."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from tests.journeys.conftest import Journeys, Tenant, start


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Journeys]:
    yield from start(tmp_path_factory.mktemp("admission"), PHRONESIS_LLM__SPEC="none")


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

    def search(self, query: str) -> list[dict[str, Any]]:
        found = self.http.get("/v1/runs/search", params={"q": query, "agent_id": "etl", "k": 10})
        assert found.status_code == 200, found.text
        hits: list[dict[str, Any]] = found.json()
        return hits

    def run(self, run_id: str) -> dict[str, Any]:
        result: dict[str, Any] = self.http.get(f"/v1/runs/{run_id}").json()
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

    # two successes with different references: both kept, one group, the newer canonical first
    a = agent.admit("Build the revenue report", steps=["Queried sales"], references=["sales.sql"])
    b = agent.admit("Build the revenue report", steps=["Queried the warehouse"], references=["warehouse.sql"])
    assert (b["decision"], b["target_run_id"]) == ("MERGE", a["run_id"])
    hits = [h for h in agent.search("revenue report") if h["group"] is not None]
    assert [h["run"]["id"] for h in hits][:2] == [b["run_id"], a["run_id"]]

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
    assert Counter(d["decision"] for d in decisions) == {"ADD": 15, "NOT": 1, "REPLACE": 1, "MERGE": 1}

"""What one tenant stores is bounded (issue 49, item 12): a tenant could store rows of every kind
for as long as a client sent them. Through a real server with quotas set: past its quota a
tenant's write is refused (403 naming the kind and the setting), nothing is stored, a replacement
is still allowed, and another tenant is not affected."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from tests.processes import phronesis_env, server

KEYS = {"sk-acme": "acme", "sk-globex": "globex"}


def _as(key: str) -> dict[str, str]:
    return {"authorization": f"Bearer {key}"}


@pytest.mark.process
def test_a_tenant_past_its_quota_is_refused_and_stores_nothing(tmp_path: Path) -> None:
    env = phronesis_env(
        tmp_path,
        PHRONESIS_API__KEYS=json.dumps(KEYS),
        PHRONESIS_QUOTAS__DOCUMENTS="3",
        PHRONESIS_QUOTAS__HEURISTICS="2",
        PHRONESIS_QUOTAS__SESSIONS="1",
        PHRONESIS_QUOTAS__TOOLS="1",
    )
    with server(env) as base, httpx.Client(base_url=base, timeout=60, headers=_as("sk-acme")) as acme:
        documents = [{"id": f"d{n}", "text": f"Fact {n} holds."} for n in range(2)]
        assert acme.post("/v1/documents", json={"documents": documents}).status_code == 201
        over = acme.post("/v1/documents", json={"documents": [{"id": "d2", "text": "A."}, {"id": "d3", "text": "B."}]})
        assert over.status_code == 403, over.text
        problem = over.json()
        assert problem["title"] == "Quota exceeded" and problem["errors"][0]["field"] == "documents"
        assert "PHRONESIS_QUOTAS__DOCUMENTS" in problem["detail"] and "stores 2 documents" in problem["detail"]
        assert acme.get("/v1/documents").json()["total"] == 2  # nothing of the refused batch
        assert acme.put("/v1/documents/d0", json={"text": "Fact 0 changed."}).status_code == 200  # a replacement
        assert acme.put("/v1/documents/d2", json={"text": "C."}).status_code == 201  # the third
        assert acme.put("/v1/documents/d3", json={"text": "D."}).status_code == 403
        job = acme.post("/v1/documents/jobs", json={"documents": [{"text": "E."}]})
        assert job.status_code == 403, job.text

        for n in range(2):
            made = acme.post("/v1/heuristics", json={"condition_text": f"sensor {n} is hot", "action_text": "cool"})
            assert made.status_code == 201
        assert acme.post("/v1/heuristics", json={"condition_text": "x is hot", "action_text": "y"}).status_code == 403
        stored = acme.get("/v1/heuristics").json()["items"][0]
        line = json.dumps({"id": stored["id"], "condition_text": "sensor 0 is very hot", "action_text": "cool it"})
        ndjson = {"content-type": "application/x-ndjson"}
        replaced = acme.post("/v1/heuristics/import", params={"upsert": "true"}, content=line, headers=ndjson)
        assert replaced.status_code == 201, replaced.text  # a replacement adds no row: allowed at the quota
        added = json.dumps({"id": "h-new", "condition_text": "z is hot", "action_text": "y"})
        over_import = acme.post("/v1/heuristics/import", params={"upsert": "true"}, content=line + "\n" + added,
                                headers=ndjson)  # fmt: skip
        assert over_import.status_code == 403, over_import.text
        assert acme.post("/v1/sessions", json={}).status_code == 201
        assert acme.post("/v1/sessions", json={}).status_code == 403
        tool = {"description": "Book a meeting", "parameters": {"type": "object", "properties": {}}}
        assert acme.put("/v1/tools/book", json=tool).status_code == 201
        assert acme.put("/v1/tools/book", json=tool).status_code == 200  # replaced at the quota
        assert acme.put("/v1/tools/cancel", json=tool).status_code == 403

        globex = acme.post("/v1/documents", json={"documents": documents}, headers=_as("sk-globex"))
        assert globex.status_code == 201  # another tenant's quota is its own

"""Journeys: whole stories through the public HTTP API of a real ``phronesis serve`` process, with
the real local sentence model (all-MiniLM-L6-v2) and, where an LLM is needed, a scripted one
behind a real chat-completions server on loopback (the one fake: a paid LLM cannot run here).

One server per module, started once (the model takes a few seconds to load); each story is its
own tenant (its own API key), so stories do not see each other's heuristics or fires.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.llm.chat_server import ChatServer, running_chat_server
from tests.processes import phronesis_env, server

REAL_MODEL = "local:all-MiniLM-L6-v2"
TENANTS = 40
"""API keys the journey server knows: one tenant per story."""


class Tenant:
    """One story's view of the server: its own API key, the calls a user makes."""

    def __init__(self, base: str, key: str, name: str) -> None:
        self.base = base
        self.key = key
        """The story's API key: the Python client and the MCP client use it too."""
        self.name = name
        """The tenant the key acts for (``--tenant`` of the CLI on the same database)."""
        self.http = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=60)

    def _ok(self, response: httpx.Response) -> Any:
        assert response.status_code < 300, f"{response.request.method} {response.request.url}: {response.text}"
        return response.json() if response.content else None

    def add(self, condition: str, action: str, confidence: float, *, domain: str = "home", **more: Any) -> str:
        body = {"condition_text": condition, "action_text": action, "confidence": confidence, "domain": domain}
        return str(self._ok(self.http.post("/v1/heuristics", json=body | more))["id"])

    def decide(self, text: str, *, source: str = "home", **more: Any) -> dict[str, Any]:
        body = {"text": text, "source": source} | more
        result: dict[str, Any] = self._ok(self.http.post("/v1/events/decide", json=body))
        return result

    def observe(self, text: str, event_id: str, *, source: str = "home") -> dict[str, Any]:
        body = {"text": text, "event_id": event_id, "source": source}
        result: dict[str, Any] = self._ok(self.http.post("/v1/events/observe", json=body))
        return result

    def fire(self, heuristic_id: str, event_id: str, *, source: str = "home") -> dict[str, Any]:
        body = {"event_id": event_id, "source": source}
        result: dict[str, Any] = self._ok(self.http.post(f"/v1/heuristics/{heuristic_id}/fires", json=body))
        return result

    def rate(self, response_id: str, **score: Any) -> dict[str, Any]:
        result: dict[str, Any] = self._ok(self.http.post("/v1/feedback", json={"response_id": response_id} | score))
        return result

    def heuristic(self, heuristic_id: str) -> dict[str, Any]:
        result: dict[str, Any] = self._ok(self.http.get(f"/v1/heuristics/{heuristic_id}"))
        return result

    def confidence(self, heuristic_id: str) -> float:
        return float(self.heuristic(heuristic_id)["confidence"])

    def history(self, heuristic_id: str) -> list[dict[str, Any]]:
        """The heuristic's confidence steps in the order they happened (the API lists newest first)."""
        page = self._ok(self.http.get(f"/v1/heuristics/{heuristic_id}/history"))
        assert page["total"] == len(page["items"])
        return list(reversed(page["items"]))

    def heuristics(self) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._ok(self.http.get("/v1/heuristics", params={"limit": 1000}))["items"]
        return result

    def report(self) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._ok(self.http.get("/v1/executive/report"))["strategies"]
        return result


class RoutingAgent:
    """An agent's routing calls over HTTP: one tenant with its documents and tools registered, and
    the lead context its sessions start with (what a call adds is merged over it)."""

    def __init__(
        self,
        tenant: Tenant,
        documents: list[dict[str, Any]],
        tools: dict[str, dict[str, Any]],
        lead: dict[str, Any] | None = None,
    ) -> None:
        self.tenant = tenant
        self.http = tenant.http
        self._lead = lead or {}
        assert self.http.post("/v1/documents", json={"documents": documents}).status_code == 201
        for name, tool in tools.items():
            assert self.http.put(f"/v1/tools/{name}", json=tool).status_code in (200, 201)

    def session(self, **lead: Any) -> str:
        created = self.http.post("/v1/sessions", json={"lead_context": self._lead | lead})
        assert created.status_code == 201, created.text
        return str(created.json()["id"])

    def route(self, session_id: str, query: str, **more: Any) -> dict[str, Any]:
        routed = self.http.post(f"/v1/sessions/{session_id}/route", json={"query": query} | more)
        assert routed.status_code == 200, routed.text
        result: dict[str, Any] = routed.json()
        return result


class Journeys:
    """The module's server and a fresh tenant per story."""

    def __init__(self, base: str, keys: dict[str, str], llm: ChatServer, env: dict[str, str]) -> None:
        self.base = base
        self.llm = llm
        self.env = env
        """The server's environment: a CLI run with it works on the same database."""
        self._keys = iter(keys.items())
        self._tenants: list[Tenant] = []

    def tenant(self) -> Tenant:
        tenant = Tenant(self.base, *next(self._keys))
        self._tenants.append(tenant)  # kept until the module ends, then closed
        return tenant

    def close(self) -> None:
        for tenant in self._tenants:
            tenant.http.close()


def scripted_llm(prompt: str) -> str:
    """The LLM the journeys script: an answer for an event, a prediction, a learned pattern."""
    if "Predict the probability" in prompt:
        return '{"success": 0.8, "confidence": 0.7}'
    if "reusable rule" in prompt:
        return json.dumps(
            {
                "condition": "the soil in the garden beds is dry and the plants in the garden are wilting in the heat",
                "action": {
                    "type": "suggest",
                    "message": "water the garden beds this evening after sunset so the plants recover overnight",
                },
            }
        )
    if "garden" in prompt or "plants" in prompt:
        return "Water the garden beds this evening after sunset so the plants recover overnight."
    return "I will look into it and let you know what I find."


def start(tmp_path: Path, **variables: str) -> Iterator[Journeys]:
    keys = {f"journey-key-{n}": f"story-{n}" for n in range(TENANTS)}
    with running_chat_server(scripted_llm) as llm:
        settings = {
            "PHRONESIS_EMBEDDINGS__SPEC": REAL_MODEL,
            "PHRONESIS_LLM__SPEC": f"openai-compatible:{llm.base_url}#script",
            "PHRONESIS_API__KEYS": json.dumps(keys),
            # short windows, so timeouts and ignores happen within a test
            "PHRONESIS_LEARNING__UNDO_WINDOW_SEC": "3",
            "PHRONESIS_LEARNING__SWEEP_INTERVAL_SEC": "0.5",
        }
        env = phronesis_env(tmp_path, **(settings | variables))
        with server(env, timeout_s=180) as base:
            journeys = Journeys(base, keys, llm, env)
            try:
                yield journeys
            finally:
                journeys.close()


@pytest.fixture(scope="module")
def journeys(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Journeys]:
    yield from start(tmp_path_factory.mktemp("journeys"))


counter = itertools.count()


def event_id(prefix: str = "ev") -> str:
    return f"{prefix}-{next(counter)}"

"""The embedding cache is each tenant's own (issue 49, item 7).

With one cache for every tenant, a hit's speed told tenant B whether tenant A had sent a text
(9.7 ms against 334 ms, 30 pairs of 30 told apart). Through a real server with two tenants' keys:
B's first look-up of A's text is a miss, however often A sent it; A's own repeat is a hit. The
server's ``/metrics`` counts the look-ups (``phronesis_embedding_cache_lookups``)."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import httpx
import pytest

from tests.processes import phronesis_env, server

KEYS = {"sk-acme-cache-test": "acme", "sk-globex-cache-test": "globex"}


def _lookups(base: str) -> dict[str, float]:
    text = httpx.get(f"{base}/metrics", timeout=10).text
    return {m[1]: float(m[2]) for m in re.finditer(r'phronesis_embedding_cache_lookups\{result="(\w+)"\} (\S+)', text)}


def _search(base: str, key: str, q: str) -> None:
    headers = {"Authorization": f"Bearer {key}"}
    answer = httpx.get(f"{base}/v1/runs/search", params={"q": q}, headers=headers, timeout=30)
    assert answer.status_code == 200, answer.text


@pytest.mark.process
def test_one_tenants_text_is_never_a_cache_hit_for_another(tmp_path: Path) -> None:
    env = phronesis_env(tmp_path, PHRONESIS_API__KEYS=json.dumps(KEYS))
    acme, globex = list(KEYS)
    with server(env) as base:
        secret = f"acquisition of initech, code name {uuid.uuid4().hex[:8]}"
        _search(base, acme, secret)
        _search(base, acme, secret)
        before = _lookups(base)
        _search(base, globex, secret)  # would be a hit (and fast) with one cache for all
        after = _lookups(base)
        assert (after["miss"] - before["miss"], after["hit"] - before["hit"]) == (1, 0)
        _search(base, acme, secret)
        assert _lookups(base)["hit"] - after["hit"] == 1  # a tenant's own repeat stays cheap

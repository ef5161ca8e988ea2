"""Keys never show in what the server writes or the CLI prints (issue 49, item 14).

- A client that put its key in the URL (``?api_key=…``: phronesis reads keys only from the
  Authorization header) had it written in full to the access log of a real server.
- ``config show`` with two keys printed one: their masks collided (``sk-…******``).
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from tests.processes import cli, phronesis_env, server

KEYS = {"sk-acme-0123456789abcdef": "acme", "sk-acme-fedcba9876543210": "bolt"}


@pytest.mark.process
def test_a_key_in_the_query_string_is_not_written_to_the_access_log(tmp_path: Path) -> None:
    env = phronesis_env(tmp_path, PHRONESIS_API__KEYS=json.dumps(KEYS), PHRONESIS_LOG_LEVEL="info")
    output: list[str] = []
    key = next(iter(KEYS))
    with server(env, output=output) as base:
        httpx.get(f"{base}/v1/decisions", params={"api_key": key, "limit": 1}, timeout=30)
    log = output[0]
    assert "/v1/decisions?api_key=***&limit=1" in log, log[-2000:]
    assert key not in log


@pytest.mark.process
def test_config_show_lists_every_key_masked_and_distinct(tmp_path: Path) -> None:
    shown = cli(phronesis_env(tmp_path, PHRONESIS_API__KEYS=json.dumps(KEYS)), "config", "show", "--json")
    keys = json.loads(shown)["api"]["keys"]
    assert sorted(keys.values()) == ["acme", "bolt"]
    assert not any(secret in shown for secret in KEYS)

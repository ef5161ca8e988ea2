"""The dashboard's session holds no key, and a form's token belongs to its session (issue 49, item 13).

The dashboard cookie held the raw API key, and tenant A's key cookie with tenant B's CSRF token
passed the check. Through a real server (keys, not dev mode): signing in sets a session cookie
with no key in it; a form posted with A's session and B's token is refused (403) and A stays
signed in; with its own token it works.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from tests.processes import phronesis_env, server

KEYS = {"sk-acme-dashboard-0123": "acme", "sk-bolt-dashboard-4567": "bolt"}


def _token(html: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert match is not None, html[:500]
    return match.group(1)


def _signed_in(base: str, key: str) -> tuple[httpx.Client, str]:
    client = httpx.Client(base_url=base, timeout=30)
    token = _token(client.get("/ui/sign-in").text)
    answer = client.post("/ui/sign-in", data={"csrf_token": token, "api_key": key})
    assert answer.status_code == 303, answer.text
    page = client.get("/ui")
    assert page.status_code == 200
    return client, _token(page.text)


@pytest.mark.process
def test_a_session_holds_no_key_and_takes_only_its_own_token(tmp_path: Path) -> None:
    env = phronesis_env(tmp_path, PHRONESIS_API__KEYS=json.dumps(KEYS))
    acme_key, bolt_key = KEYS
    with server(env) as base:
        acme, acme_token = _signed_in(base, acme_key)
        bolt, bolt_token = _signed_in(base, bolt_key)
        try:
            assert "phronesis_session" in acme.cookies
            assert not any(key in value for key in KEYS for value in acme.cookies.values())
            acme.cookies.set("phronesis_csrf", bolt_token, path="/ui")  # B's token, as a cookie too
            mixed = acme.post("/ui/sign-out", data={"csrf_token": bolt_token})
            assert mixed.status_code == 403
            assert "phronesis_session" in acme.cookies  # still signed in
            own = acme.post("/ui/sign-out", data={"csrf_token": acme_token})
            assert own.status_code == 303 and own.headers["location"].endswith("/ui/sign-in")
        finally:
            acme.close()
            bolt.close()

"""A keyless dev server answers only requests addressed to loopback (issue 49, item 3).

Dev mode trusts loopback clients without a key. Through DNS rebinding a web page elsewhere reached
a dev server with its own Host and Origin, read the dashboard's CSRF token and set a tenant's
``executive.heuristic_threshold`` to 0.3; only ``/mcp`` refused. Through a real dev server: a
foreign Host answers 421 and a foreign Origin 403 on ``/v1``, ``/ui`` and the settings, and
nothing changes; loopback names on any port still work.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.processes import phronesis_env, server


@pytest.mark.process
def test_a_page_elsewhere_cannot_use_the_dev_server_through_dns_rebinding(tmp_path: Path) -> None:
    with server(phronesis_env(tmp_path)) as base, httpx.Client(base_url=base, timeout=30) as http:
        port = base.rsplit(":", 1)[1]
        before = http.get("/v1/settings").json()
        evil = {"host": f"attacker.example:{port}"}
        for method, path in (("GET", "/v1/settings"), ("GET", "/ui/"), ("GET", "/v1/heuristics")):
            answer = http.request(method, path, headers=evil)
            assert answer.status_code == 421, (path, answer.status_code, answer.text[:200])
            assert answer.headers["content-type"].startswith("application/problem+json")
        change = {"values": {"executive.heuristic_threshold": 0.3}}
        assert http.put("/v1/settings", json=change, headers=evil).status_code == 421
        page = {"origin": "http://attacker.example"}
        assert http.put("/v1/settings", json=change, headers=page).status_code == 403
        assert http.get("/v1/settings").json() == before  # nothing changed
        for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}"):
            assert http.get("/healthz", headers={"host": host}).status_code == 200, host
        assert http.get("/v1/settings", headers={"origin": f"http://localhost:{port}"}).status_code == 200

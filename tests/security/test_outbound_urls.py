"""A tenant's URLs cannot reach what the operator's URLs may (issue 49, items 4 and 10).

Through a real server whose operator configured a webhook receiver on loopback: a tenant's
``calendar_url`` on another port of that host, or under another path, is refused (it was fetched
and its content shown); so are IPv6 spellings that carry loopback (IPv4-compatible, NAT64, 6to4),
which passed. The operator's own receiver URL is still accepted as a user's webhook."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.loopback import free_port
from tests.processes import phronesis_env, server


@pytest.mark.process
def test_only_the_operators_exact_url_is_exempt_and_ipv6_loopback_spellings_are_refused(tmp_path: Path) -> None:
    hook = f"http://127.0.0.1:{free_port()}/hook"
    env = phronesis_env(tmp_path, PHRONESIS_PROACTIVE__WEBHOOK_URL=hook)
    port = hook.split(":")[2].split("/")[0]
    with server(env) as base, httpx.Client(base_url=base, timeout=30) as http:
        for url in (f"http://127.0.0.1:{int(port) + 1}/cal.ics", f"http://127.0.0.1:{port}/cal.ics",
                    "http://[::127.0.0.1]/cal.ics", "http://[64:ff9b::7f00:1]/cal.ics",
                    "http://[2002:7f00:1::]/cal.ics"):  # fmt: skip
            answer = http.put("/v1/users/ana", json={"timezone": "UTC", "calendar_url": url})
            assert answer.status_code == 422, (url, answer.text)
            assert answer.json()["field"] == "calendar_url" and "loopback" in answer.json()["detail"]
        own = http.put("/v1/users/ana", json={"timezone": "UTC", "channel": "webhook", "address": hook})
        assert own.status_code in (200, 201), own.text

"""Every page says who may frame it, and the metrics can be closed (issue 49, item 11).

``/``, ``/docs`` and the JSON routes sent no Content-Security-Policy or ``frame-ancestors``, and
``/metrics`` (counts summed over tenants) answered anyone. Through a real server: every response
carries a policy with ``frame-ancestors 'none'`` (the dashboard keeps its own stricter one), and
with ``PHRONESIS_API__METRICS_TOKEN`` set ``/metrics`` answers only that token.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.processes import phronesis_env, server


@pytest.mark.process
def test_every_response_forbids_framing_and_the_metrics_need_their_token(tmp_path: Path) -> None:
    env = phronesis_env(tmp_path, PHRONESIS_API__METRICS_TOKEN="scrape-me-0123")
    with server(env) as base, httpx.Client(base_url=base, timeout=30) as http:
        for path in ("/", "/docs", "/v1/heuristics", "/ui/", "/healthz", "/v1/nothing-here"):
            answer = http.get(path)
            policy = answer.headers.get("content-security-policy", "")
            assert "frame-ancestors 'none'" in policy, (path, policy)
            assert answer.headers.get("x-content-type-options") == "nosniff", path
        assert "'unsafe-inline'" not in http.get("/ui/").headers["content-security-policy"].split("script-src")[1]
        assert http.get("/metrics").status_code == 401
        assert http.get("/metrics", headers={"authorization": "Bearer wrong"}).status_code == 401
        http.get("/ui/static/style.css")
        scraped = http.get("/metrics", headers={"authorization": "Bearer scrape-me-0123"})
        assert scraped.status_code == 200 and "phronesis_http_requests" in scraped.text
        # issue 52: a page or a static file is counted under its route, not "(unmatched)"
        assert 'route="/ui/static/{path}",status="200"' in scraped.text
        assert 'route="(slash redirect)",status="307"' in scraped.text  # /ui/ → /ui
        counted = [line for line in scraped.text.splitlines() if line.startswith("phronesis_http_requests_total")]
        unmatched = [line for line in counted if 'route="(unmatched)"' in line]
        assert unmatched and all('status="404"' in line for line in unmatched), unmatched  # /v1/nothing-here

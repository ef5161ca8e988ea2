"""Who the dashboard shows data to (``ui.session.viewer``): the same keys and dev-mode rule as the API."""

from __future__ import annotations

from starlette.requests import Request

from phronesis.settings import ApiSettings
from phronesis.ui.session import KEY_COOKIE, Viewer, viewer


def _request(host: str, cookie: str | None = None) -> Request:
    headers = [(b"cookie", f"{KEY_COOKIE}={cookie}".encode())] if cookie else []
    return Request({"type": "http", "method": "GET", "path": "/ui", "headers": headers, "client": (host, 5000)})


def test_a_known_key_signs_in_and_dev_mode_admits_loopback_only() -> None:
    keys = ApiSettings(keys={"sk-1": "acme"})
    dev = ApiSettings(keys={"sk-1": "acme"}, dev_mode=True, dev_tenant="default")
    assert viewer(_request("10.0.0.5", "sk-1"), keys) == Viewer("acme", signed_in=True)
    assert viewer(_request("10.0.0.5", "sk-nope"), keys) is None
    assert viewer(_request("127.0.0.1"), keys) is None  # no dev mode: a key is needed
    assert viewer(_request("127.0.0.1"), dev) == Viewer("default", signed_in=False)
    assert viewer(_request("127.0.0.1", "sk-nope"), dev) == Viewer("default", signed_in=False)
    assert viewer(_request("10.0.0.5"), dev) is None  # dev mode is for this machine only

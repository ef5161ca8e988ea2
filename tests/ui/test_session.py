"""Who the dashboard shows data to (``ui.session``): the same keys and dev-mode rule as the API, a
session cookie that holds no key, and a CSRF token bound to the session."""

from __future__ import annotations

from http.cookies import SimpleCookie
from types import SimpleNamespace

from fastapi import Response
from starlette.requests import Request

from phronesis.settings import ApiSettings
from phronesis.ui.session import SESSION, Viewer, csrf_token, csrf_valid, set_session, viewer

KEYS = ApiSettings(keys={"sk-acme-secret": "acme", "sk-bolt-secret": "bolt"})


def _request(host: str, cookies: dict[str, str] | None = None, settings: ApiSettings = KEYS) -> Request:
    header = "; ".join(f"{name}={value}" for name, value in (cookies or {}).items())
    app = SimpleNamespace(state=SimpleNamespace(engine=SimpleNamespace(settings=SimpleNamespace(api=settings))))
    return Request({"type": "http", "method": "GET", "path": "/ui", "headers": [(b"cookie", header.encode())],
                    "client": (host, 5000), "app": app, "scheme": "http", "server": ("127.0.0.1", 8000)})  # fmt: skip


def _session_of(key: str, settings: ApiSettings = KEYS) -> str:
    response = Response()
    set_session(_request("10.0.0.5", settings=settings), response, key)
    cookie: SimpleCookie = SimpleCookie(response.headers["set-cookie"])
    return cookie[SESSION].value


def test_a_known_key_signs_in_and_dev_mode_admits_loopback_only() -> None:
    dev = ApiSettings(keys=KEYS.keys, dev_mode=True, dev_tenant="default")
    acme = _session_of("sk-acme-secret")
    assert "sk-acme-secret" not in acme  # the cookie holds no key
    assert viewer(_request("10.0.0.5", {SESSION: acme}), KEYS) == Viewer("acme", signed_in=True)
    assert viewer(_request("10.0.0.5", {SESSION: acme + "0"}), KEYS) is None  # a forged MAC
    assert viewer(_request("10.0.0.5", {"phronesis_key": "sk-acme-secret"}), KEYS) is None  # the old cookie
    assert viewer(_request("127.0.0.1"), KEYS) is None  # no dev mode: a key is needed
    assert viewer(_request("127.0.0.1"), dev) == Viewer("default", signed_in=False)
    assert viewer(_request("10.0.0.5"), dev) is None  # dev mode is for this machine only
    removed = ApiSettings(keys={"sk-bolt-secret": "bolt"})
    assert viewer(_request("10.0.0.5", {SESSION: acme}, removed), removed) is None  # a removed key signs out


def test_a_form_needs_the_token_of_its_own_session() -> None:
    """An attack review: tenant A's key cookie with tenant B's CSRF token passed the check."""
    acme, bolt = _session_of("sk-acme-secret"), _session_of("sk-bolt-secret")
    acme_token = csrf_token(_request("10.0.0.5", {SESSION: acme}))
    bolt_token = csrf_token(_request("10.0.0.5", {SESSION: bolt}))
    assert acme_token != bolt_token
    assert csrf_valid(_request("10.0.0.5", {SESSION: acme}), acme_token)
    assert not csrf_valid(_request("10.0.0.5", {SESSION: acme, "phronesis_csrf": bolt_token}), bolt_token)
    assert not csrf_valid(_request("10.0.0.5", {SESSION: acme}), None)

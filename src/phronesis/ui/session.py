"""Who is looking at the dashboard, and whether a form was posted by the dashboard itself.

Signing in gives the browser a session cookie (httpOnly, ``SameSite=Strict``; on https
``__Host-`` prefixed and ``Secure``) that holds no key: a fingerprint of the key (its SHA-256),
a CSRF token, and a MAC over both under a secret derived from every configured key. Each request
verifies the MAC and finds the tenant whose key has that fingerprint again, so a key removed from
the settings signs its holder out on every worker at once, and nothing is kept in memory. In dev
mode a loopback browser is the dev tenant, as for the API.

Forms: a state-changing request carries a CSRF token. A signed-in browser's must be the one its
session was issued with: tenant A's session with tenant B's token is refused (with the token a
cookie of its own, such a mix would pass). Before signing in (the sign-in form, a dev-mode
browser) the token must equal the ``csrf`` cookie (double submit: random, httpOnly,
``SameSite=Strict``, ``__Host-`` on https).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import cast

from fastapi import Request, Response

from phronesis.api.auth import dev_tenant
from phronesis.embeddings.cache import cache_scope
from phronesis.settings import ApiSettings

__all__ = [
    "CSRF_FIELD",
    "Viewer",
    "csrf_token",
    "csrf_valid",
    "keep_csrf",
    "set_session",
    "viewer",
]

SESSION = "phronesis_session"
CSRF = "phronesis_csrf"
CSRF_FIELD = "csrf_token"
_PATH = "/ui"


@dataclass(frozen=True, slots=True)
class Viewer:
    tenant: str
    signed_in: bool
    """False in dev mode: a loopback browser without a key (there is nothing to sign out of)."""


def _secure(request: Request) -> bool:
    return request.url.scheme == "https"


def _name(request: Request, base: str) -> str:
    """``__Host-`` names on https (Secure, path ``/``, no Domain: no subdomain can set them)."""
    return f"__Host-{base}" if _secure(request) else base


def _set(request: Request, response: Response, base: str, value: str | None) -> None:
    secure = _secure(request)
    path = "/" if secure else _PATH
    if value is None:
        response.delete_cookie(_name(request, base), path=path, httponly=True, samesite="strict", secure=secure)
    else:
        response.set_cookie(
            _name(request, base), value, httponly=True, samesite="strict", secure=secure, path=path
        )


def _fingerprint(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def _secret(settings: ApiSettings) -> bytes:
    """The sessions' MAC key: derived from every configured key, the same on every worker; a
    tenant, knowing only its own key, cannot derive it when another tenant exists."""
    material = "\n".join(sorted(settings.keys)).encode()
    return hmac.new(b"phronesis dashboard session", material, hashlib.sha256).digest()


def _mac(settings: ApiSettings, payload: str) -> str:
    return hmac.new(_secret(settings), payload.encode(), hashlib.sha256).hexdigest()


_UNVERIFIED = object()


def _session(request: Request, settings: ApiSettings) -> tuple[str, str] | None:
    """The (tenant, CSRF token) of the request's session, or None: no cookie, a forged or stale one.
    Verified once a request (a page asks for its viewer, its token and whether to keep the cookie)."""
    session = getattr(request.state, "phronesis_session", _UNVERIFIED)
    if session is _UNVERIFIED:
        session = request.state.phronesis_session = _verified(request, settings)
    return cast("tuple[str, str] | None", session)


def _verified(request: Request, settings: ApiSettings) -> tuple[str, str] | None:
    value = request.cookies.get(_name(request, SESSION))
    if not value or not settings.keys:
        return None
    payload, _, mac = value.rpartition(".")
    fingerprint, _, token = payload.partition(".")
    if not token or not hmac.compare_digest(mac.encode(), _mac(settings, payload).encode()):
        return None
    found: str | None = None
    for key, tenant in settings.keys.items():  # every key compared: timing tells no prefix
        if hmac.compare_digest(_fingerprint(key).encode(), fingerprint.encode()):
            found = tenant
    return None if found is None else (found, token)


def viewer(request: Request, settings: ApiSettings) -> Viewer | None:
    """The tenant whose data this request may see, or None (sign in first)."""
    session = _session(request, settings)
    if session is not None:
        return Viewer(cache_scope(session[0]), signed_in=True)
    tenant = dev_tenant(request, settings)
    return None if tenant is None else Viewer(cache_scope(tenant), signed_in=False)


def _settings(request: Request) -> ApiSettings:
    settings: ApiSettings = request.app.state.engine.settings.api
    return settings


def csrf_token(request: Request) -> str:
    """The token this browser's forms carry: its session's, else its ``csrf`` cookie's, or a new one
    (``keep_csrf`` sets it)."""
    session = _session(request, _settings(request))
    if session is not None:
        return session[1]
    return request.cookies.get(_name(request, CSRF)) or secrets.token_urlsafe(32)


def keep_csrf(request: Request, response: Response, token: str) -> None:
    """Keep the double-submit cookie for a browser without a session (a session holds its own)."""
    if _session(request, _settings(request)) is None:
        _set(request, response, CSRF, token)


def csrf_valid(request: Request, presented: str | None) -> bool:
    """The form's token is this browser's: its session's when it has one, else its ``csrf`` cookie's."""
    session = _session(request, _settings(request))
    expected = session[1] if session is not None else request.cookies.get(_name(request, CSRF))
    if not expected or not presented:
        return False
    return hmac.compare_digest(expected.encode(), presented.encode())


def set_session(request: Request, response: Response, key: str | None) -> None:
    """Sign in with ``key`` (a new session and CSRF token), or out (None)."""
    if key is None:
        _set(request, response, SESSION, None)
        return
    settings = _settings(request)
    payload = f"{_fingerprint(key)}.{secrets.token_urlsafe(32)}"
    _set(request, response, SESSION, f"{payload}.{_mac(settings, payload)}")

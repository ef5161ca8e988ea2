"""Who is looking at the dashboard, and whether a form was posted by the dashboard itself.

Signing in: the API key goes into an httpOnly, ``SameSite=Strict`` cookie scoped to ``/ui``,
and every request resolves it to its tenant again (``api.auth``), so a key removed from the
settings signs its holder out on every worker at once; nothing is kept in memory. In dev mode
a loopback browser is the dev tenant, as for the API.

Forms: a state-changing request carries a CSRF token that must equal the ``phronesis_csrf``
cookie (double submit). The cookie is random, httpOnly and ``SameSite=Strict``: another site
can neither read it nor set it, so it cannot build a form the dashboard would accept. It is
stateless, so any worker checks any form.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass

from fastapi import Request, Response

from phronesis.api.auth import dev_tenant, tenant_for_key
from phronesis.embeddings.cache import cache_scope
from phronesis.settings import ApiSettings

__all__ = [
    "CSRF_COOKIE",
    "CSRF_FIELD",
    "KEY_COOKIE",
    "Viewer",
    "csrf_token",
    "csrf_valid",
    "keep_csrf",
    "set_key_cookie",
    "viewer",
]

KEY_COOKIE = "phronesis_key"
CSRF_COOKIE = "phronesis_csrf"
CSRF_FIELD = "csrf_token"
_PATH = "/ui"


@dataclass(frozen=True, slots=True)
class Viewer:
    tenant: str
    signed_in: bool
    """False in dev mode: a loopback browser without a key (there is nothing to sign out of)."""


def viewer(request: Request, settings: ApiSettings) -> Viewer | None:
    """The tenant whose data this request may see, or None (sign in first)."""
    key = request.cookies.get(KEY_COOKIE)
    if key:
        tenant = tenant_for_key(settings, key)
        if tenant is not None:
            return Viewer(cache_scope(tenant), signed_in=True)
    tenant = dev_tenant(request, settings)
    return None if tenant is None else Viewer(cache_scope(tenant), signed_in=False)


def _secure(request: Request) -> bool:
    return request.url.scheme == "https"


def csrf_token(request: Request) -> str:
    """This browser's CSRF token: the cookie's, or a new one (``keep_csrf`` sets it)."""
    return request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(32)


def keep_csrf(request: Request, response: Response, token: str) -> None:
    response.set_cookie(CSRF_COOKIE, token, httponly=True, samesite="strict", secure=_secure(request), path=_PATH)


def csrf_valid(request: Request, presented: str | None) -> bool:
    cookie = request.cookies.get(CSRF_COOKIE)
    if not cookie or not presented:
        return False
    return hmac.compare_digest(cookie.encode(), presented.encode())


def set_key_cookie(request: Request, response: Response, key: str | None) -> None:
    """Hold ``key`` for the dashboard (None: forget it, i.e. sign out)."""
    if key is None:
        response.delete_cookie(KEY_COOKIE, path=_PATH, httponly=True, samesite="strict", secure=_secure(request))
        return
    response.set_cookie(KEY_COOKIE, key, httponly=True, samesite="strict", secure=_secure(request), path=_PATH)

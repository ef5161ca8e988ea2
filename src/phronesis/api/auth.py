"""Bearer API keys mapped to tenants; a loud, loopback-only dev mode without keys."""

from __future__ import annotations

import hmac
import ipaddress

from fastapi import HTTPException, Request

from phronesis.embeddings.cache import cache_scope
from phronesis.settings import ApiSettings

__all__ = [
    "CHALLENGE",
    "Unauthorized",
    "dev_tenant",
    "is_loopback_host",
    "resolve_tenant",
    "tenant_for_key",
    "tenant_of_request",
]

CHALLENGE = {"WWW-Authenticate": 'Bearer realm="phronesis"'}


def is_loopback_host(host: str | None) -> bool:
    if host in (None, ""):
        return False
    if host in {"localhost", "testclient"}:  # Starlette's TestClient reports "testclient"
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def tenant_for_key(settings: ApiSettings, presented: str) -> str | None:
    """The tenant of an API key, or None (the dashboard signs in with the same keys)."""
    found: str | None = None
    for key, tenant in settings.keys.items():
        # compare against every key so timing does not reveal which prefix matched
        if hmac.compare_digest(key.encode(), presented.encode()):
            found = tenant
    return found


def dev_tenant(request: Request, settings: ApiSettings) -> str | None:
    """The dev tenant for a request from loopback in dev mode; None otherwise (a key is needed).
    The API and the dashboard (``ui.session``) both admit a keyless request by this rule."""
    client = request.client.host if request.client else None
    return settings.dev_tenant if settings.dev_mode and is_loopback_host(client) else None


class Unauthorized(Exception):
    """No tenant for this request: no key, a malformed header, or an unknown key."""


def tenant_of_request(request: Request, settings: ApiSettings) -> str:
    """The tenant of a request's API key, or the dev tenant in dev mode from loopback: one rule for
    ``/v1`` (``resolve_tenant``) and ``/mcp`` (``mcp.http``)."""
    header = request.headers.get("authorization")
    if header:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthorized("Authorization must be 'Bearer <api key>'")
        tenant = tenant_for_key(settings, token.strip())
        if tenant is None:
            raise Unauthorized("unknown API key")
        return tenant
    tenant = dev_tenant(request, settings)
    if tenant is not None:
        return tenant
    raise Unauthorized("an API key is required (Authorization: Bearer <key>)")


async def resolve_tenant(request: Request) -> str:
    """The tenant of this request's API key, or the dev tenant in dev mode from loopback.

    ``async`` although it never awaits: FastAPI would run a plain function in a thread.
    """
    settings: ApiSettings = request.app.state.engine.settings.api
    try:
        return cache_scope(tenant_of_request(request, settings))  # the tenant's own embedding cache
    except Unauthorized as exc:
        raise HTTPException(401, str(exc), headers=CHALLENGE) from None

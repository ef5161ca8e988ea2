"""Rate limits per API key, per client address and on failed authentication (429 + Retry-After).

Without them an attacker's 300 bad-key requests in 2.3 s and 200 dashboard sign-in guesses are all
served. Counting is the ``limits`` library's (fixed windows), in this worker's memory or in
Redis for every worker (``api.rate_limits.storage``). Failed authentication is counted from the
answers (401) and checked before a request is served, so a client over it is refused without its
key being looked at. Health probes are never limited.

If the count's storage (Redis) is down the request is served and a warning logged: a rate limiter
outage must not take the API down with it.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time

from limits import RateLimitItem, parse_many
from limits.aio.strategies import FixedWindowRateLimiter
from limits.errors import StorageError
from limits.storage import storage_from_string
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from phronesis.api.problems import problem_response
from phronesis.settings import RateLimitSettings

__all__ = ["RateLimitMiddleware"]

log = logging.getLogger("phronesis.api")

_EXEMPT = frozenset({"/healthz", "/readyz", "/metrics"})


def _items(spec: str) -> list[RateLimitItem]:
    return list(parse_many(spec)) if spec.strip() else []


def _storage_uri(uri: str) -> str:
    """The ``limits`` async storage for a configured URI (``redis://…`` → ``async+redis://…``)."""
    if uri.startswith("memory"):
        return "async+memory://"
    return uri if uri.startswith("async+") else f"async+{uri}"


class RateLimitMiddleware:
    def __init__(self, app: ASGIApp, settings: RateLimitSettings) -> None:
        self.app = app
        uri = _storage_uri(settings.storage)
        options: dict[str, float | str | bool] = {"wrap_exceptions": True}
        if "redis" in uri:
            options["implementation"] = "redispy"
        self._limiter = FixedWindowRateLimiter(storage_from_string(uri, **options))
        self._failures = _items(settings.auth_failures)
        self._per_key = _items(settings.per_key)
        self._per_address = _items(settings.per_address)

    async def _over(self, items: list[RateLimitItem], kind: str, who: str, *, consume: bool) -> int | None:
        """Seconds until ``who`` may try again, when over one of ``items``; None otherwise."""
        for item in items:
            allowed = await (self._limiter.hit if consume else self._limiter.test)(item, kind, who)
            if not allowed:
                reset, _ = await self._limiter.get_window_stats(item, kind, who)
                return max(1, math.ceil(reset - time.time()))
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in _EXEMPT:
            await self.app(scope, receive, send)
            return
        address = scope["client"][0] if scope.get("client") else "unknown"
        try:
            wait = await self._over(self._failures, "auth-failures", address, consume=False)
            if wait is None:
                wait = await self._over(self._per_address, "address", address, consume=True)
            key = _presented_key(scope)
            if wait is None and key is not None:
                wait = await self._over(self._per_key, "key", key, consume=True)
        except StorageError as exc:
            log.warning("rate limits not checked: their storage failed (%s)", exc)
            wait = None
        if wait is not None:
            detail = f"too many requests from this client; try again in {wait} s"
            headers = {"Retry-After": str(wait)}
            await problem_response(429, "Too many requests", detail, headers=headers)(scope, receive, send)
            return
        if not self._failures:
            await self.app(scope, receive, send)
            return

        async def counted(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 401:
                try:
                    for item in self._failures:
                        await self._limiter.hit(item, "auth-failures", address)
                except StorageError as exc:
                    log.warning("a failed authentication was not counted: rate limit storage failed (%s)", exc)
            await send(message)

        await self.app(scope, receive, counted)


def _presented_key(scope: Scope) -> str | None:
    """A fingerprint of the request's API key (never the key itself), or None without one."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            return hashlib.sha256(value).hexdigest()[:24]
    return None

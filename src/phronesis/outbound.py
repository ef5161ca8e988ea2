"""Requests the server makes to URLs its users gave it: calendar feeds, webhooks.

A user's ``calendar_url`` or webhook address could name the server's own loopback, the
private network behind it or a cloud metadata service (169.254.169.254), and the server
would fetch or post there for them. ``OutboundPolicy`` refuses any address that is not
globally routable unless ``outbound.allow`` names its host or network:

- at input (``check``): a 422 naming the field, after resolving the name;
- at connect time (``GuardedTransport``, httpx's one-method transport seam): the name is
  resolved again, every address checked, and the connection made to the checked address
  (TLS still verifies the name, sent as SNI), so a DNS answer that changes in between
  (rebinding) cannot slip through; a redirect is a new request and is checked the same way.

Responses are read up to a bound (``read_head``, ``read_limited``).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx

from phronesis.exceptions import InvalidInputError

__all__ = ["BlockedAddress", "GuardedTransport", "OutboundPolicy", "read_head", "read_limited"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class BlockedAddress(httpx.TransportError):
    """The request would reach an address the policy refuses (raised before connecting)."""


@dataclass(frozen=True)
class OutboundPolicy:
    allow: frozenset[str] = frozenset()
    """Host names (exact, case-insensitive) and networks (CIDR) that may be reached anyway."""
    operator_urls: tuple[str, ...] = ()
    """URLs the operator configured (their webhook receiver, the WhatsApp API): these exactly (scheme,
    host, port and the path under theirs) may be reached, not their host on any port (else a
    tenant's ``calendar_url`` on another port of the webhook receiver's host would be fetched)."""
    networks: tuple[Network, ...] = field(default=(), init=False)
    hosts: frozenset[str] = field(default=frozenset(), init=False)

    def __post_init__(self) -> None:
        networks, hosts = [], set()
        for entry in self.allow:
            try:
                networks.append(ipaddress.ip_network(entry.strip(), strict=False))
            except ValueError:
                hosts.add(entry.strip().lower())
        object.__setattr__(self, "networks", tuple(networks))
        object.__setattr__(self, "hosts", frozenset(hosts))

    @classmethod
    def of(cls, allow: Iterable[str], *operator_urls: str | None) -> OutboundPolicy:
        """The settings' allowlist plus the URLs the operator configured (their own webhook
        receiver, the WhatsApp API): the operator named those, a user did not."""
        return cls(frozenset(allow), tuple(_origin_and_path(url) for url in operator_urls if url))

    def _operators(self, url: str | None) -> bool:
        """``url`` is one the operator configured, or under one's path."""
        if url is None:
            return False
        wanted = _origin_and_path(url)
        return any(wanted == known or wanted.startswith(known.rstrip("/") + "/") for known in self.operator_urls)

    def refusal(self, host: str, address: IPAddress, url: str | None = None) -> str | None:
        """Why ``address`` (which ``host`` resolved to, for ``url``) may not be reached; None if it may."""
        if host.lower() in self.hosts or any(address in network for network in self.networks) or self._operators(url):
            return None
        inside = [a for a in _embedded(address) if not (a.is_global and not a.is_multicast)]
        effective = inside[0] if inside else getattr(address, "ipv4_mapped", None) or address
        if not inside and effective.is_global and not effective.is_multicast:
            return None
        kind = (
            "loopback"
            if effective.is_loopback
            else "link-local (cloud metadata lives here)"
            if effective.is_link_local
            else "private"
            if effective.is_private
            else "not publicly routable"
        )
        return f"{host} resolves to {effective}, a {kind} address; allow it with PHRONESIS_OUTBOUND__ALLOW"

    async def resolve(self, host: str, port: int, url: str | None = None) -> IPAddress:
        """The first address ``host`` resolves to (for ``url``), every one of them checked."""
        try:
            literal: IPAddress | None = ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            literal = None
        if literal is not None:
            addresses = [literal]
        else:
            try:
                found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except OSError as exc:
                raise BlockedAddress(f"cannot resolve {host}: {exc.strerror or exc}") from None
            except UnicodeError:  # the name cannot be a DNS name at all (a label over 63 characters)
                raise BlockedAddress(f"cannot resolve {host[:80]}: not a valid host name") from None
            addresses = [ipaddress.ip_address(info[4][0]) for info in found]
        for address in addresses:
            reason = self.refusal(host, address, url)
            if reason is not None:
                raise BlockedAddress(reason)
        return addresses[0]

    async def check(self, field_name: str, url: str) -> None:
        """At input: ``url`` is http(s) and reaches an allowed address, else ``InvalidInputError``."""
        expected = f"expected an http:// or https:// URL, got {url[:80]!r}"
        try:
            parts = urlsplit(url)
            port = parts.port  # a port that is not a number raises here
        except ValueError as exc:  # "Invalid IPv6 URL", "Port out of range"…
            raise InvalidInputError(field_name, f"{expected}: {exc}") from None
        if url != url.strip() or parts.scheme not in ("http", "https") or not parts.hostname:
            raise InvalidInputError(field_name, expected)
        try:
            await self.resolve(parts.hostname, port or (443 if parts.scheme == "https" else 80), url)
        except BlockedAddress as exc:
            raise InvalidInputError(field_name, str(exc)) from None


def _origin_and_path(url: str) -> str:
    """``scheme://host:port/path`` with the default port written out, no query (a URL compared
    with the operator's)."""
    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        port = 0
    return f"{parts.scheme.lower()}://{(parts.hostname or '').lower()}:{port}{parts.path or '/'}"


_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_COMPATIBLE = ipaddress.ip_network("::/96")


def _embedded(address: IPAddress) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries, where a network would route it to them:
    IPv4-mapped (``::ffff:127.0.0.1``), IPv4-compatible (``::127.0.0.1``), NAT64 (``64:ff9b::7f00:1``),
    6to4 (``2002:7f00:1::``) and Teredo's client. Each is checked like the address itself (else
    loopback in the three middle forms would pass)."""
    if not isinstance(address, ipaddress.IPv6Address):
        return []
    low = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    out = [a for a in (address.ipv4_mapped, address.sixtofour) if a is not None]
    if any(address in network for network in _NAT64) or (address in _COMPATIBLE and int(address) > 1):
        out.append(low)
    if address.teredo is not None:
        out.extend(address.teredo)
    return out


class GuardedTransport(httpx.AsyncBaseTransport):
    """Connects only to addresses ``policy`` allows, to the very address it checked."""

    def __init__(self, policy: OutboundPolicy, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self.policy = policy
        self._inner = inner or httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        host = request.url.host
        port = request.url.port or (443 if request.url.scheme == "https" else 80)
        address = await self.policy.resolve(host, port, str(request.url))
        if str(address) == host.strip("[]"):
            return await self._inner.handle_async_request(request)
        # a copy (the client keeps the original for redirects) aimed at the checked address: its
        # Host header still names ``host``, and TLS verifies ``host`` through SNI
        extensions = dict(request.extensions)
        if request.url.scheme == "https":
            extensions["sni_hostname"] = host
        pinned = httpx.Request(
            request.method,
            request.url.copy_with(host=str(address)),
            headers=request.headers,
            stream=request.stream,
            extensions=extensions,
        )
        return await self._inner.handle_async_request(pinned)

    async def aclose(self) -> None:
        await self._inner.aclose()


async def read_head(response: httpx.Response, limit: int) -> tuple[bytes, bool]:
    """At most ``limit`` bytes of a streamed response's body, and whether that was all of it;
    the rest is never read."""
    chunks, size = [], 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            return b"".join(chunks)[:limit], False
    return b"".join(chunks), True


async def read_limited(response: httpx.Response, limit: int) -> bytes:
    """The body of a streamed response, refusing one larger than ``limit`` bytes."""
    body, whole = await read_head(response, limit)
    if not whole:
        raise InvalidInputError("response", f"{response.url.host} sent more than {limit} bytes")
    return body

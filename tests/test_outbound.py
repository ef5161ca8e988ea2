"""User-supplied URLs cannot reach the server's own network (issue 20): refused at input and at
connect time, redirects included; what is allowed is reached at the very address checked."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from phronesis.exceptions import InvalidInputError
from phronesis.outbound import BlockedAddress, GuardedTransport, OutboundPolicy
from phronesis.proactive.sources.icalendar_source import ICalendarSource
from tests.cli.test_proactive_cli import ics
from tests.loopback import serving

REFUSED = [
    ("http://127.0.0.1:8000/cal.ics", "loopback"),
    ("http://[::1]/cal.ics", "loopback"),
    ("http://localhost/cal.ics", "loopback"),  # a name that resolves to loopback
    ("http://10.1.2.3/hook", "private"),
    ("http://192.168.0.10/hook", "private"),
    ("http://169.254.169.254/latest/meta-data/", "link-local (cloud metadata lives here)"),
    ("http://[::ffff:10.0.0.1]/hook", "private"),  # IPv4 hidden in IPv6
    ("http://0.0.0.0/", "private"),
    ("http://100.64.0.1/", "not publicly routable"),  # carrier-grade NAT
]


@pytest.mark.parametrize(("url", "kind"), REFUSED)
async def test_a_url_leading_inside_is_refused_at_input(url: str, kind: str) -> None:
    with pytest.raises(InvalidInputError) as refused:
        await OutboundPolicy().check("calendar_url", url)
    assert refused.value.field == "calendar_url"
    assert f"a {kind} address" in refused.value.message and "PHRONESIS_OUTBOUND__ALLOW" in refused.value.message


@pytest.mark.parametrize(
    "url", ["httP://[\u008b\ud936wE", "http://[::1", "http://example.com:99999/", "http://h:port/"]
)
async def test_a_url_that_does_not_parse_is_invalid_input_not_a_server_error(url: str) -> None:
    """Found by the OpenAPI fuzzer: urlsplit raised ValueError, a 500."""
    with pytest.raises(InvalidInputError) as refused:
        await OutboundPolicy().check("calendar_url", url)
    assert refused.value.field == "calendar_url" and "expected an http:// or https:// URL" in refused.value.message


@pytest.mark.parametrize(("url", "kind"), REFUSED)
async def test_a_url_leading_inside_is_refused_at_connect_time(url: str, kind: str) -> None:
    calls: list[httpx.Request] = []
    inner = httpx.MockTransport(lambda request: calls.append(request) or httpx.Response(200))
    async with httpx.AsyncClient(transport=GuardedTransport(OutboundPolicy(), inner)) as client:
        with pytest.raises(BlockedAddress, match=kind.split(" ")[0]):
            await client.get(url)
    assert calls == []  # nothing was sent


async def test_an_allowed_name_is_reached_at_the_address_that_was_checked() -> None:
    """Against DNS rebinding: the connection goes to the checked address, the name rides along
    in the Host header and, over TLS, as SNI (so the certificate is still verified for it)."""
    calls: list[httpx.Request] = []
    inner = httpx.MockTransport(lambda request: calls.append(request) or httpx.Response(200))
    policy = OutboundPolicy(frozenset({"localhost"}))
    async with httpx.AsyncClient(transport=GuardedTransport(policy, inner)) as client:
        await client.get("http://localhost:8123/a")
        await client.get("https://localhost:8443/b")
    assert [c.url.host for c in calls] in (["127.0.0.1", "127.0.0.1"], ["::1", "::1"])
    assert [c.headers["host"] for c in calls] == ["localhost:8123", "localhost:8443"]
    assert "sni_hostname" not in calls[0].extensions and calls[1].extensions["sni_hostname"] == "localhost"


async def test_an_allowlisted_network_and_a_public_address_pass() -> None:
    policy = OutboundPolicy(frozenset({"10.0.0.0/8"}))
    await policy.check("address", "http://10.9.8.7/hook")
    await policy.check("address", "https://93.184.215.14/hook")  # a public address, no DNS needed
    with pytest.raises(InvalidInputError):
        await policy.check("address", "http://192.168.1.1/hook")
    with pytest.raises(InvalidInputError, match="http:// or https://"):
        await policy.check("address", "file:///etc/passwd")
    with pytest.raises(InvalidInputError, match="not a valid host name"):  # found by schemathesis: was a 500
        await policy.check("calendar_url", "https://" + "0" * 300 + "/x.ics")


def test_the_operators_own_urls_are_allowed_and_nothing_else_on_their_host() -> None:
    """Issue 49, item 4: the operator's webhook receiver exempted its whole host, on any port: a
    tenant's calendar on another port of it was fetched. Exactly the operator's URL (and below its
    path, e.g. the WhatsApp API's ``/<phone id>/messages``) is exempt now."""
    policy = OutboundPolicy.of(["calendar.intranet"], "http://127.0.0.1:9000/hook", None)
    loopback = ipaddress.ip_address("127.0.0.1")
    assert policy.refusal("127.0.0.1", loopback, "http://127.0.0.1:9000/hook") is None
    assert policy.refusal("127.0.0.1", loopback, "http://127.0.0.1:9000/hook/123/messages") is None
    assert policy.refusal("127.0.0.1", loopback, "http://127.0.0.1:9001/hook") is not None
    assert policy.refusal("127.0.0.1", loopback, "http://127.0.0.1:9000/calendar.ics") is not None
    assert policy.refusal("127.0.0.1", loopback, "http://127.0.0.1:9000/hooks") is not None
    assert policy.refusal("127.0.0.1", loopback) is not None
    assert policy.refusal("calendar.intranet", ipaddress.ip_address("10.0.0.5")) is None
    assert policy.refusal("other.intranet", ipaddress.ip_address("10.0.0.5")) is not None


@pytest.mark.parametrize("literal", ["::127.0.0.1", "64:ff9b::7f00:1", "2002:7f00:1::", "64:ff9b::a9fe:a9fe",
                                     "::ffff:10.0.0.1", "2001:0:4136:e378:8000:63bf:80ff:fffe"])  # fmt: skip
def test_ipv6_forms_that_carry_a_private_ipv4_are_refused(literal: str) -> None:
    """Issue 49, item 10: IPv4-compatible, NAT64 and 6to4 forms of loopback passed the check (the
    last is Teredo, whose client 127.0.0.1 is stored inverted)."""
    assert OutboundPolicy().refusal(literal, ipaddress.ip_address(literal)) is not None


def test_a_global_ipv6_address_passes() -> None:
    assert OutboundPolicy().refusal("2606:4700:4700::1111", ipaddress.ip_address("2606:4700:4700::1111")) is None


class _Redirecting(ThreadingHTTPServer):
    """A real server on loopback whose feed redirects to ``target``."""

    daemon_threads = True

    def __init__(self, target: str, body: bytes) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.target, self.body = target, body


class _Handler(BaseHTTPRequestHandler):
    server: _Redirecting

    def do_GET(self) -> None:
        if self.path == "/feed.ics":
            self.send_response(302)
            self.send_header("location", self.server.target)
            self.send_header("content-length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("content-type", "text/calendar")
        self.send_header("content-length", str(len(self.server.body)))
        self.end_headers()
        self.wfile.write(self.server.body)

    def log_message(self, *_: Any) -> None:
        pass


@contextmanager
def feed(target: str, body: bytes = b"") -> Iterator[str]:
    with serving(_Redirecting(target, body)) as server:
        yield f"http://localhost:{server.server_address[1]}"


async def test_a_redirect_into_the_network_is_refused() -> None:
    policy = OutboundPolicy(frozenset({"localhost"}))  # the feed's own host is allowed, 127.0.0.1 is not
    with feed("http://127.0.0.1:9/secret") as base:
        async with httpx.AsyncClient(transport=GuardedTransport(policy), timeout=10) as client:
            with pytest.raises(InvalidInputError, match="BlockedAddress: 127.0.0.1 resolves to 127.0.0.1"):
                await ICalendarSource(f"{base}/feed.ics", http=client).collect(datetime.now(UTC))


async def test_an_allowed_redirect_is_followed_and_a_large_answer_refused() -> None:
    policy = OutboundPolicy(frozenset({"localhost"}))
    body = ics(datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=30)).encode()
    with feed("/real.ics", body) as base:
        async with httpx.AsyncClient(transport=GuardedTransport(policy), timeout=10) as client:
            signals = await ICalendarSource(f"{base}/feed.ics", http=client).collect(datetime.now(UTC))
            assert signals
            with pytest.raises(InvalidInputError, match="more than 100 bytes"):
                await ICalendarSource(f"{base}/feed.ics", http=client, max_bytes=100).collect(datetime.now(UTC))

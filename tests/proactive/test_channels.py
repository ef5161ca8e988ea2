"""Webhook and WhatsApp delivery against a real HTTP server on loopback: signatures, retries, formats."""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from phronesis.exceptions import ConfigurationError
from phronesis.proactive.channels.http_poster import HttpPoster
from phronesis.proactive.channels.registry import build_channels
from phronesis.proactive.channels.types import Outbound
from phronesis.proactive.channels.webhook import WebhookChannel
from phronesis.proactive.channels.whatsapp import WhatsAppChannel
from phronesis.proactive.settings import ProactiveSettings
from tests.proactive.receiver import receiver

NOW = datetime(2026, 3, 10, 12, tzinfo=UTC)


def outbound(address: str | None, *, action: str = "text", replied: timedelta | None = timedelta(hours=1)) -> Outbound:
    return Outbound(
        send_id="send-1",
        tenant="t",
        user_id="ana",
        address=address,
        text="CS2103 is due tomorrow - want me to block 2-5pm?",
        category="deadline_warning",
        action_type=action,
        last_user_message_at=NOW - replied if replied is not None else None,
        now=NOW,
    )


def poster(client: httpx.AsyncClient, attempts: int = 3) -> HttpPoster:
    return HttpPoster(client, attempts=attempts, backoff_s=0.0)


async def test_a_webhook_is_signed_and_carries_an_idempotency_key() -> None:
    with receiver() as server:
        async with httpx.AsyncClient() as client:
            channel = WebhookChannel(poster(client), default_url=f"{server.url}/hook", secret=b"s3cret")
            delivery = await channel.deliver(outbound(None, action="button_prompt"))
    assert (delivery.status, delivery.attempts) == ("sent", 1)
    request = server.received[0]
    expected = hmac.new(
        b"s3cret", request.headers["x-phronesis-timestamp"].encode() + b"." + request.body, hashlib.sha256
    )
    assert request.headers["x-phronesis-signature"] == "sha256=" + expected.hexdigest()
    assert request.headers["idempotency-key"] == "send-1"
    body = json.loads(request.body)
    assert body["text"].startswith("CS2103") and [b["id"] for b in body["buttons"]] == ["btn_yes", "btn_later"]


async def test_server_errors_are_retried_with_the_same_key_and_client_errors_are_not() -> None:
    with receiver(500, 503) as server:
        async with httpx.AsyncClient() as client:
            delivery = await WebhookChannel(poster(client), default_url=server.url, secret=None).deliver(outbound(None))
    assert (delivery.status, delivery.attempts) == ("sent", 3)
    assert {r.headers["idempotency-key"] for r in server.received} == {"send-1"}
    with receiver(400) as server:
        async with httpx.AsyncClient() as client:
            delivery = await WebhookChannel(poster(client), default_url=server.url, secret=None).deliver(outbound(None))
    assert (delivery.status, delivery.attempts, len(server.received)) == ("failed", 1, 1)
    assert "HTTP 400" in delivery.detail


async def test_an_unreachable_receiver_fails_after_every_attempt() -> None:
    with receiver() as server:
        url = server.url
    async with httpx.AsyncClient() as client:
        delivery = await WebhookChannel(poster(client, 2), default_url=url, secret=None).deliver(outbound(None))
    assert (delivery.status, delivery.attempts) == ("failed", 2) and "transport error" in delivery.detail


@pytest.mark.parametrize(
    ("action", "replied", "format_", "kind"),
    [
        ("text", timedelta(hours=2), "text", "text"),
        ("button_prompt", timedelta(hours=2), "buttons", "interactive"),
        ("button_prompt", timedelta(hours=25), "template", "template"),  # outside the 24 h window
        ("text", None, "template", "template"),  # the user never wrote
    ],
)
async def test_whatsapp_uses_free_text_inside_the_window_and_a_template_outside(
    action: str, replied: timedelta | None, format_: str, kind: str
) -> None:
    with receiver() as server:
        async with httpx.AsyncClient() as client:
            channel = WhatsAppChannel(
                poster(client),
                api_url=server.url,
                phone_number_id="12345",
                token="tok",
                template="update",
                language="en",
            )
            delivery = await channel.deliver(outbound("+6591234567", action=action, replied=replied))
    request = server.received[0]
    payload = json.loads(request.body)
    assert (delivery.status, delivery.format, payload["type"]) == ("sent", format_, kind)
    assert request.path == "/12345/messages" and request.headers["authorization"] == "Bearer tok"
    assert payload["to"] == "+6591234567" and payload["messaging_product"] == "whatsapp"
    if kind == "template":
        assert payload["template"]["components"][0]["parameters"][0]["text"].startswith("CS2103")


async def test_whatsapp_needs_its_credentials() -> None:
    async with httpx.AsyncClient() as client:
        assert "whatsapp" not in build_channels(ProactiveSettings(), client)
        with pytest.raises(ConfigurationError, match="WHATSAPP_TOKEN"):
            build_channels(ProactiveSettings(channel="whatsapp"), client)

"""A webhook: the message as JSON, signed with HMAC-SHA256 so the receiver can trust it.

Headers: ``X-Phronesis-Signature: sha256=<hex of HMAC(secret, "<timestamp>.<body>")>``,
``X-Phronesis-Timestamp`` (to refuse replays) and ``Idempotency-Key`` (the send id).
"""

from __future__ import annotations

import hashlib
import hmac
import json

from phronesis.proactive.channels.http_poster import HttpPoster
from phronesis.proactive.channels.types import Delivery, Outbound
from phronesis.proactive.models import BUTTONS

__all__ = ["WebhookChannel", "signature"]


def signature(secret: bytes, timestamp: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret, timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()


class WebhookChannel:
    name = "webhook"

    def __init__(self, poster: HttpPoster, *, default_url: str | None, secret: bytes | None) -> None:
        self._poster = poster
        self._default_url = default_url
        self._secret = secret

    async def deliver(self, message: Outbound) -> Delivery:
        url = message.address or self._default_url
        if not url:
            return Delivery("failed", "no webhook URL: set the user's address or PHRONESIS_PROACTIVE__WEBHOOK_URL", 0)
        body = json.dumps(
            {
                "id": message.send_id,
                "tenant": message.tenant,
                "user_id": message.user_id,
                "text": message.text,
                "category": message.category,
                "action_type": message.action_type,
                "buttons": list(BUTTONS) if message.action_type == "button_prompt" else [],
                "sent_at": message.now.isoformat(),
            },
            separators=(",", ":"),
        ).encode()
        timestamp = str(int(message.now.timestamp()))
        headers = {
            "content-type": "application/json",
            "Idempotency-Key": message.send_id,
            "X-Phronesis-Timestamp": timestamp,
        }
        if self._secret is not None:
            headers["X-Phronesis-Signature"] = signature(self._secret, timestamp, body)
        return await self._poster.post(url, body, headers, format="webhook")

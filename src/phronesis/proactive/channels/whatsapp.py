"""WhatsApp Cloud API delivery (seed 004 §7).

Inside the 24-hour customer-service window (since the user's last message) a message goes
out as free text, or as interactive reply buttons for a ``button_prompt``; outside it,
only an approved template may be sent, whatever the action type, with the message as its
one body parameter.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from phronesis.proactive.channels.http_poster import HttpPoster
from phronesis.proactive.channels.types import Delivery, Outbound
from phronesis.proactive.models import BUTTONS

__all__ = ["WhatsAppChannel", "whatsapp_payload"]

SERVICE_WINDOW = timedelta(hours=24)


def whatsapp_payload(message: Outbound, *, template: str, language: str) -> tuple[dict[str, Any], str]:
    """The Cloud API body for ``message`` and its format (text, buttons or template)."""
    base: dict[str, Any] = {"messaging_product": "whatsapp", "recipient_type": "individual", "to": message.address}
    last = message.last_user_message_at
    if last is None or message.now - last >= SERVICE_WINDOW:
        base |= {
            "type": "template",
            "template": {
                "name": template,
                "language": {"code": language},
                "components": [{"type": "body", "parameters": [{"type": "text", "text": message.text[:1024]}]}],
            },
        }
        return base, "template"
    if message.action_type == "button_prompt":
        base |= {
            "type": "interactive",
            "interactive": {
                "type": "button",
                "body": {"text": message.text[:1024]},
                "action": {"buttons": [{"type": "reply", "reply": dict(b)} for b in BUTTONS]},
            },
        }
        return base, "buttons"
    return base | {"type": "text", "text": {"preview_url": False, "body": message.text[:4096]}}, "text"


class WhatsAppChannel:
    name = "whatsapp"

    def __init__(
        self, poster: HttpPoster, *, api_url: str, phone_number_id: str, token: str, template: str, language: str
    ) -> None:
        self._poster = poster
        self._url = f"{api_url.rstrip('/')}/{phone_number_id}/messages"
        self._token = token
        self._template = template
        self._language = language

    async def deliver(self, message: Outbound) -> Delivery:
        if not message.address:
            return Delivery("failed", "the user has no WhatsApp number (address)", 0)
        payload, fmt = whatsapp_payload(message, template=self._template, language=self._language)
        headers = {
            "content-type": "application/json",
            "authorization": f"Bearer {self._token}",
            "Idempotency-Key": message.send_id,
        }
        return await self._poster.post(self._url, json.dumps(payload).encode(), headers, format=fmt)

"""The delivery seam: one method, like httpx's transport. A channel never raises for a failed
delivery; it returns what happened, and the cycle records it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol

__all__ = ["Channel", "Delivery", "Outbound"]


@dataclass(frozen=True, slots=True)
class Outbound:
    send_id: str
    """Stable across retries: receivers deduplicate on it (``Idempotency-Key``)."""
    tenant: str
    user_id: str
    address: str | None
    text: str
    category: str
    action_type: str
    last_user_message_at: datetime | None
    now: datetime


@dataclass(frozen=True, slots=True)
class Delivery:
    status: Literal["sent", "failed"]
    detail: str
    attempts: int = 1
    format: str = "text"
    """How it went out: text, buttons, template (WhatsApp outside its 24-hour window), log, webhook."""
    retryable: bool = False
    """A failure that may pass later (timeout, 5xx, 429, no connection): the outbox tries again."""


class Channel(Protocol):
    name: str

    async def deliver(self, message: Outbound) -> Delivery: ...

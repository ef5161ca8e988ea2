"""What more than one settings section uses: the field types, and the outbound requests' section
(``phronesis.outbound``; the proactive loop's calendar feeds and webhooks read it too). A
package's own section lives in its ``settings`` module; ``phronesis.settings`` composes them."""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import BeforeValidator, Field
from pydantic_settings import NoDecode

from phronesis.schema import Schema

__all__ = ["OutboundSettings", "PositiveSeconds", "Probability", "split_on"]


def split_on(separator: str) -> Any:
    """Accept a list as is, or a ``separator``-joined string as the seeds write it."""

    def split(value: Any) -> Any:
        if isinstance(value, str):
            if value.lstrip().startswith("["):
                return json.loads(value)
            return [part.strip() for part in value.split(separator) if part.strip()]
        return value

    return BeforeValidator(split)


Probability = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
PositiveSeconds = Annotated[float, Field(gt=0.0, allow_inf_nan=False)]


class OutboundSettings(Schema):
    """Requests to URLs users give (calendar feeds, webhook addresses): see ``phronesis.outbound``."""

    allow: Annotated[list[str], NoDecode, split_on(",")] = Field(default_factory=list)
    """Hosts or networks (CIDR) a user's URL may reach although they are loopback, private or
    link-local, e.g. ``calendar.intranet,10.1.0.0/16``. The hosts of the operator's own
    ``webhook_url`` and ``whatsapp_api_url`` themselves are always allowed (exactly those URLs, not
    their hosts' other ports or paths)."""
    max_response_bytes: int = Field(default=5_000_000, ge=1024, le=100_000_000)
    """The largest answer read from a URL a user gave (a calendar feed, a webhook's reply); past it the read stops."""

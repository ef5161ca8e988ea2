"""Channels by name, built from settings once; a channel that is not configured is an error at start-up."""

from __future__ import annotations

import httpx

from phronesis.exceptions import ConfigurationError
from phronesis.proactive.channels.console import ConsoleChannel
from phronesis.proactive.channels.http_poster import HttpPoster
from phronesis.proactive.channels.types import Channel
from phronesis.proactive.channels.webhook import WebhookChannel
from phronesis.proactive.channels.whatsapp import WhatsAppChannel
from phronesis.proactive.settings import ProactiveSettings

__all__ = ["build_channels"]


def build_channels(settings: ProactiveSettings, client: httpx.AsyncClient) -> dict[str, Channel]:
    poster = HttpPoster(client, attempts=settings.delivery_attempts, backoff_s=settings.delivery_backoff_sec)
    channels: dict[str, Channel] = {
        "console": ConsoleChannel(),
        "webhook": WebhookChannel(
            poster,
            default_url=settings.webhook_url,
            secret=settings.webhook_secret.get_secret_value().encode() if settings.webhook_secret else None,
        ),
    }
    if settings.whatsapp_phone_number_id and settings.whatsapp_token:
        channels["whatsapp"] = WhatsAppChannel(
            poster,
            api_url=settings.whatsapp_api_url,
            phone_number_id=settings.whatsapp_phone_number_id,
            token=settings.whatsapp_token.get_secret_value(),
            template=settings.whatsapp_template,
            language=settings.whatsapp_template_language,
        )
    elif settings.channel == "whatsapp":
        raise ConfigurationError(
            "PHRONESIS_PROACTIVE__CHANNEL=whatsapp needs PHRONESIS_PROACTIVE__WHATSAPP_PHONE_NUMBER_ID and "
            "PHRONESIS_PROACTIVE__WHATSAPP_TOKEN"
        )
    return channels

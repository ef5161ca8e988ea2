"""The embedded default: a proactive message is written to the log, nothing leaves the machine."""

from __future__ import annotations

import json
import logging

from phronesis.proactive.channels.types import Delivery, Outbound

__all__ = ["ConsoleChannel"]

log = logging.getLogger("phronesis.proactive")


class ConsoleChannel:
    name = "console"

    async def deliver(self, message: Outbound) -> Delivery:
        log.info(
            "proactive message %s",
            json.dumps(
                {
                    "user_id": message.user_id,
                    "send_id": message.send_id,
                    "category": message.category,
                    "action_type": message.action_type,
                    "text": message.text,
                }
            ),
        )
        return Delivery("sent", "logged", format="log")

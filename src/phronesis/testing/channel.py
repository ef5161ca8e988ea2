"""A proactive channel that delivers nowhere and remembers everything (like httpx's MockTransport).

``RecordingChannel(fail=True)`` returns a failed delivery, for the delivery-failure paths.
"""

from __future__ import annotations

from phronesis.proactive.channels.types import Delivery, Outbound

__all__ = ["RecordingChannel"]


class RecordingChannel:
    __test__ = False

    def __init__(self, name: str = "console", *, fail: bool = False) -> None:
        self.name = name
        self.fail = fail
        self.sent: list[Outbound] = []

    async def deliver(self, message: Outbound) -> Delivery:
        if self.fail:
            return Delivery("failed", "RecordingChannel told to fail", 1)
        self.sent.append(message)
        return Delivery("sent", "recorded", 1, "text")

"""A proactive channel that delivers nowhere and remembers everything (like httpx's MockTransport).

``RecordingChannel(fail=True)`` returns a failed delivery, for the delivery-failure paths;
``retryable=True`` makes that failure one the outbox tries again (a timeout, a 503), and
``failures=N`` fails only the next N deliveries.
"""

from __future__ import annotations

from phronesis.proactive.channels.types import Delivery, Outbound

__all__ = ["RecordingChannel"]


class RecordingChannel:
    __test__ = False

    def __init__(
        self, name: str = "console", *, fail: bool = False, retryable: bool = False, failures: int | None = None
    ) -> None:
        self.name = name
        self.fail = fail
        self.retryable = retryable
        self.failures = failures
        self.attempts: list[Outbound] = []
        """Every delivery asked for, failed ones included."""
        self.sent: list[Outbound] = []

    async def deliver(self, message: Outbound) -> Delivery:
        self.attempts.append(message)
        if self.failures is not None and self.failures > 0:
            self.failures -= 1
            return Delivery("failed", "RecordingChannel told to fail", 1, retryable=self.retryable)
        if self.fail and self.failures is None:
            return Delivery("failed", "RecordingChannel told to fail", 1, retryable=self.retryable)
        self.sent.append(message)
        return Delivery("sent", "recorded", 1, "text")

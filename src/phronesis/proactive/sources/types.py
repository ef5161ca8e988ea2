"""The pulled-signal seam: a source turns something it watches into signals for one user."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from phronesis.proactive.models import SignalIn

__all__ = ["SignalSource"]


class SignalSource(Protocol):
    name: str

    async def collect(self, now: datetime) -> list[SignalIn]:
        """Signals as of ``now``. Re-collecting is safe: each signal has a stable dedup key."""
        ...

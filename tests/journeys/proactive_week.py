"""A user's week with a proactive agent through a real server (seed 004): the helpers every
proactive journey uses. The server's clock is the real one, so a week is compressed: a cycle
every 3 s, no cooldown, and "night" is the user's sleep time moved around the present moment."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from tests.journeys.conftest import Journeys, Tenant
from tests.proactive.receiver import Receiver

SETTINGS = {
    "PHRONESIS_LLM__SPEC": "none",
    "PHRONESIS_PROACTIVE__SCHEDULER": "true",
    "PHRONESIS_PROACTIVE__CYCLE_MINUTES": "0.05",
    "PHRONESIS_PROACTIVE__COOLDOWN_MINUTES": "0",
    # a busy or empty day (seed §9) is timed by the hour a test happens to run (the evening
    # before, the morning of): tested on its own
    "PHRONESIS_PROACTIVE__CALENDAR_DAYS": "false",
    "PHRONESIS_OUTBOUND__ALLOW": "127.0.0.1",
}
"""The compressed week's server settings."""


class Week:
    def __init__(self, journeys: Journeys, hook: Receiver, user: str, zone: str, feed: str | None = None) -> None:
        self.tenant: Tenant = journeys.tenant()
        self.hook = hook
        self.user = user
        self.zone = ZoneInfo(zone)
        self.feed = feed

    def call(self, method: str, path: str, body: Any = None) -> Any:
        response = self.tenant.http.request(method, path, json=body)
        assert response.status_code < 300, f"{method} {path}: {response.text}"
        return response.json() if response.content else None

    def hours(self, *, asleep: bool, **profile: Any) -> None:
        """The profile with the sleep time around now (asleep) or twelve hours away (awake)."""
        local = datetime.now(self.zone)
        sleep, wake = (local - timedelta(hours=2), local + timedelta(hours=2))
        if not asleep:
            sleep, wake = local + timedelta(hours=6), local - timedelta(hours=6)
        body = {
            "timezone": self.zone.key,
            "sleep_time": f"{sleep:%H:%M}",
            "wake_time": f"{wake:%H:%M}",
            "created_at": "2025-01-01T00:00:00Z",
            "interaction_count": 500,
            "channel": "webhook",
            "address": f"{self.hook.url}/{self.user}",
            "calendar_url": self.feed,
        } | profile
        self.call("PUT", f"/v1/users/{self.user}", body)

    def signals(self, *signals: dict[str, Any]) -> None:
        self.call("POST", f"/v1/users/{self.user}/signals", {"signals": list(signals)})

    def signal(self, title: str, urgency: int, type_: str = "deadline_approaching", **data: Any) -> None:
        self.signals(about(title, urgency, type_, **data))

    def messages(self) -> list[dict[str, Any]]:
        return [json.loads(r.body) for r in self.hook.received if r.path == f"/{self.user}"]

    def next_message(self, seen: int, timeout_s: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            messages = self.messages()
            if len(messages) > seen:
                assert len(messages) == seen + 1, messages[seen:]
                self._recorded(seen + 1, deadline)
                return messages[seen]
            time.sleep(0.2)
        raise AssertionError(f"no message after {seen}: {self.now()}")

    def _recorded(self, sent: int, deadline: float) -> None:
        """Until the server has recorded the delivery the webhook just received: a person reads
        a message after it arrived. (A reply within the delivery's own round trip answers it
        too, ``SendRepository.pending``; waiting keeps the week's counts deterministic.)"""
        while time.monotonic() < deadline:
            if self.call("GET", f"/v1/users/{self.user}/feedback-summary")["total_sent"] >= sent:
                return
            time.sleep(0.05)
        raise AssertionError(f"the server never recorded delivery {sent}")

    def nothing_for(self, seen: int, seconds: float = 8) -> None:
        """Two or three scheduler ticks pass without a message."""
        time.sleep(seconds)
        assert len(self.messages()) == seen, self.messages()[seen:]

    def reply(self, text: str) -> dict[str, Any]:
        result: dict[str, Any] = self.call("POST", f"/v1/users/{self.user}/messages", {"text": text})
        return result

    def now(self) -> dict[str, Any]:
        result: dict[str, Any] = self.call("GET", f"/v1/users/{self.user}/timeline")["now"]
        return result

    def stored(self) -> list[dict[str, Any]]:
        """Every signal of the user, with what it became."""
        result: list[dict[str, Any]] = self.call("GET", f"/v1/users/{self.user}/signals?limit=200")["items"]
        return result

    def totals(self) -> dict[str, int]:
        """The tenant's counters, summed over days."""
        totals: dict[str, int] = {}
        for counts in self.call("GET", "/v1/proactive/stats").values():
            for name, value in counts.items():
                totals[name] = totals.get(name, 0) + value
        return totals


def about(
    title: str, urgency: int, type_: str = "deadline_approaching", *, hours: float = 1, moment: str = "due", **data: Any
) -> dict[str, Any]:
    """A signal due (or, ``moment="start"``, starting) ``hours`` from now, keyed by its title."""
    when = (datetime.now(UTC) + timedelta(hours=hours)).isoformat()
    return {"type": type_, "urgency_hint": urgency, "data": {"title": title, moment: when} | data, "dedup_key": title}

"""A proactive decision in words (seed 004), from its record: the message sent and why it won, or why
the cycle stayed silent."""

from __future__ import annotations

from typing import Any

from phronesis.audit.models import NewDecisionRecord
from phronesis.audit.words import count, quoted

__all__ = ["explain_proactive"]

_SILENT = {
    "paused": "proactive messages are paused for this user",
    "opted_out": "the user opted out",
    "muted": "the user muted proactive messages",
    "no_signals": "no signals",
    "context_only": "only context signals, nothing to tell",
    "low_urgency": "no signal urgent enough for the user's trust level",
    "daily_cap": "the daily cap is reached",
    "cooldown": "too soon after the last message",
    "no_candidates": "no message to propose",
    "duplicate": "the message was sent already",
    "suppressed": "the user stopped this kind of message",
    "already_sent": "another worker decided this cycle",
    "delivery_failed": "the message could not be delivered",
}


def explain_proactive(record: NewDecisionRecord) -> str:
    a = record.attributes
    candidates: list[dict[str, Any]] = list(a.get("candidates") or [])
    threshold = a.get("threshold")
    if record.action == "sent":
        sent = next((c for c in candidates if c.get("verdict") == "approved"), candidates[0] if candidates else {})
        others = len(candidates) - 1
        return (
            f"sent {quoted(sent.get('message'))} ({sent.get('category')}, score {sent.get('score')} ≥ {threshold})"
            + (f" over {count(others, 'other candidate')}" if others > 0 else "")
        )
    reason = record.reason or "no reason recorded"
    if reason == "quiet_hours":
        until = a.get("until_local")
        zone = a.get("timezone")
        return f"silent: quiet hours{f' until {until} local' if until else ''}{f' ({zone})' if zone else ''}"
    if reason == "daily_cap":
        sent_today = record.inputs.get("sends_today")
        cap = (record.inputs.get("trust") or {}).get("daily_cap")
        return f"silent: the daily cap{f' of {cap}' if cap else ''} is reached" + (
            f" ({sent_today} sent today)" if sent_today is not None else ""
        )
    if reason == "below_threshold" and candidates:
        best = max(candidates, key=lambda c: c.get("score") or 0.0)
        return f"silent: the best candidate {quoted(best.get('message'))} scored {best.get('score')} < {threshold}"
    return f"silent: {_SILENT.get(reason, reason)}"

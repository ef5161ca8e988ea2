"""A user's proactive story in one list: why they got a message, or did not.

signal stored → signal used by a cycle (its ``cycle_key``), with what it became and why (sent,
folded, deferred, duplicate…; ``fates``), or expired unused → the cycle's decision record
(pre-filter block when ``record_blocked``, else candidates with scores and verdicts) → the send
and its delivery (attempts, detail) → the user's reply (its text and how it was read) → the
feedback; and what stopped messages: opt-outs, mutes, the tenant's pause (``user_events``).
Events share the ``cycle_key`` that links a signal to the cycle that used it and to its send.
With the history comes what a cycle would decide now (``Preview``): the pre-filter's current
verdict even when blocked cycles are not recorded. Read-only: a few indexed queries for one user.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from phronesis.audit.models import DecisionRecord
from phronesis.proactive.fates import state_of
from phronesis.proactive.models import ProactiveFeedback, Signal, TimelineEvent

__all__ = ["timeline_events"]


_ORDER = {
    "pause": 0,
    "resume": 0,
    "opt_in": 0,
    "unmute": 0,
    "signal": 1,
    "signal_used": 2,
    "signal_expired": 2,
    "cycle": 3,
    "send": 4,
    "reply": 5,
    "feedback": 6,
    "opt_out": 7,
    "mute": 7,
}


def _signal_events(signal: Signal, now: datetime) -> list[TimelineEvent]:
    title = signal.data.get("title") or signal.data.get("summary") or ""
    stored = TimelineEvent(
        at=signal.created_at,
        kind="signal",
        summary=f"{signal.type} (urgency {signal.urgency_hint})" + (f": {str(title)[:120]}" if title else ""),
        ids={"signal_id": signal.id},
        details={"expires_at": signal.expires_at.isoformat(), "context_only": signal.context_only},
    )
    state = state_of(signal, now)
    if state == "pending":
        return [stored]
    if state == "expired":  # unsent: its moment passed first, or every cycle was blocked or had a better message
        expired = TimelineEvent(
            at=signal.consumed_at or signal.expires_at,
            kind="signal_expired",
            summary=f"{signal.type} expired unsent" + (f": {signal.outcome_reason}" if signal.outcome_reason else ""),
            cycle_key=signal.cycle_key,
            ids={"signal_id": signal.id},
            details={"state": state, "reason": signal.outcome_reason},
        )
        return [stored, expired]
    assert signal.consumed_at is not None
    ref = {"send": signal.outcome_ref} if state in ("sent", "folded") and signal.outcome_ref else {}
    used = TimelineEvent(
        at=signal.consumed_at,
        kind="signal_used",
        summary=f"{signal.type} {state}: {signal.outcome_reason or f'used by cycle {signal.cycle_key}'}",
        cycle_key=signal.cycle_key,
        ids={"signal_id": signal.id} | ({"send_id": ref["send"]} if ref else {}),
        details={"state": state, "reason": signal.outcome_reason, "ref": signal.outcome_ref},
    )
    return [stored, used]


def _cycle_event(record: DecisionRecord) -> TimelineEvent:
    attributes: dict[str, Any] = record.attributes or {}
    details: dict[str, Any] = {"path": record.path}
    for key in ("candidates", "threshold", "fallback_reason", "delivery", "delivery_detail", "delivery_attempts"):
        if attributes.get(key) is not None:
            details[key] = attributes[key]
    if record.inputs and "trust" in record.inputs:
        details["trust"] = record.inputs["trust"]
    return TimelineEvent(
        at=record.created_at,
        kind="cycle",
        summary=f"{record.action} ({record.reason})" + (" at the pre-filter" if record.path == "prefilter" else ""),
        cycle_key=attributes.get("cycle_key"),
        ids={"decision_id": record.id} | ({"send_id": attributes["send_id"]} if attributes.get("send_id") else {}),
        details=details,
    )


def _send_events(send: ProactiveFeedback, cycle_keys: dict[str, str]) -> list[TimelineEvent]:
    ids = {"send_id": send.id} | ({"decision_id": send.decision_id} if send.decision_id else {})
    out = [
        TimelineEvent(
            at=send.sent_at,
            kind="send",
            summary=f"{send.category} via {send.channel}: {send.delivery_status}"
            + (f" after {send.attempts} attempts" if send.attempts > 1 else ""),
            cycle_key=cycle_keys.get(send.id),
            ids=ids,
            details={"message": send.message, "score": send.score, "delivery_detail": send.delivery_detail},
        )
    ]
    if send.outcome != "pending" and send.outcome_at is not None:
        latency = send.response_latency_seconds
        out.append(
            TimelineEvent(
                at=send.outcome_at,
                kind="feedback",
                summary=send.outcome + (f" after {latency / 60:.0f} min" if latency is not None else ""),
                cycle_key=cycle_keys.get(send.id),
                ids=ids,
            )
        )
    return out


def timeline_events(
    signals: list[Signal],
    records: list[DecisionRecord],
    sends: list[ProactiveFeedback],
    done: list[TimelineEvent],
    *,
    since: datetime,
    limit: int,
    now: datetime,
) -> list[TimelineEvent]:
    """Every event since ``since``, newest first, at most ``limit``; ``done`` is what the user and
    their tenant did (``user_events``): replies, opt-outs, mutes, pauses."""
    cycle_keys = {
        str(r.attributes["send_id"]): str(r.attributes.get("cycle_key"))
        for r in records
        if r.attributes and r.attributes.get("send_id")
    }
    events = [e for s in signals for e in _signal_events(s, now)]
    events += [_cycle_event(r) for r in records]
    events += [e for s in sends for e in _send_events(s, cycle_keys)]
    events += done
    kept = [e for e in events if e.at >= since]
    kept.sort(key=lambda e: (e.at, _ORDER[e.kind]), reverse=True)  # at one instant: effect after cause
    return kept[:limit]

"""Every decision explained in one sentence, from what its record keeps: the sentence the
API returns as ``explanation``, the dashboard shows above the record's JSON, and the CLI prints.

Each decision point words its own decisions (``<point>/explain.py``); this module only picks by the
record's kind, so the points do not depend on one another or on this module.
"""

from __future__ import annotations

from collections.abc import Callable

from phronesis.admission.explain import explain_admission
from phronesis.audit.models import DecisionRecord, NewDecisionRecord
from phronesis.executive.explain import explain_executive
from phronesis.proactive.explain import explain_proactive
from phronesis.routing.explain import explain_routing

__all__ = ["about", "explain", "explained"]


def _setting(record: NewDecisionRecord) -> str:
    """A tenant's setting applied, or reset to the configured value (the trial read a reset as "set")."""
    if record.path == "reset":
        said = f"reset {record.subject_id} to its configured value ({str(record.action).partition('=')[2]})"
    else:
        said = f"set {record.action}"
    return said + (f": {record.reason}" if record.reason else "")


def _learning(record: NewDecisionRecord) -> str:
    return f"{record.action or record.path}" + (f": {record.reason}" if record.reason else "")


_BY_KIND: dict[str, Callable[[NewDecisionRecord], str]] = {
    "executive": explain_executive,
    "reevaluation": lambda record: "decided again in the sleep cycle: " + explain_executive(record),
    "routing": explain_routing,
    "admission": explain_admission,
    "proactive": explain_proactive,
    "setting": _setting,
    "learning": _learning,
}


def explain(record: NewDecisionRecord) -> str:
    """The decision in words. A record too old or too odd to word says what it has, never fails."""
    try:
        return _BY_KIND[record.kind](record)
    except (KeyError, TypeError, ValueError, AttributeError) as error:  # a record written by an older version
        return f"{record.kind} {record.path}: {record.action or record.reason or 'no action'} (not worded: {error!r})"


def explained(record: DecisionRecord) -> DecisionRecord:
    """The record with its ``explanation``."""
    return record.model_copy(update={"explanation": explain(record)})


_ABOUT = ("query", "event_text", "task")


def about(record: NewDecisionRecord) -> str:
    """What the decision was about, in the words it was given: the routed query, the event's text,
    the run's task; else whom or what (a proactive decision's user, a setting's name)."""
    for key in _ABOUT:
        given = record.inputs.get(key)
        if isinstance(given, str) and given.strip():
            return " ".join(given.split())
    if record.kind == "proactive" and record.subject_id:
        return f"user {record.subject_id}"
    return record.subject_id or ""

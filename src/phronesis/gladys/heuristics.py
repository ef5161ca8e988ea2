"""A GLADyS ``Heuristic`` as a phronesis heuristic, and back.

- ``effects_json`` (``{"type": "suggest", "message": ...}``) gives the action: its ``message``, else
  its ``text`` or ``response`` (what GLADyS's orchestrator reads). The whole object is kept, so an
  effect of another type, or with more fields, comes back as it was sent.
- ``origin``: any of GLADyS's values is accepted (``built_in``, ``pack``, ``learned``, ``user``,
  ``test`` …). phronesis's own origin is the nearest it has (``Origin``); GLADyS's is kept and
  answered back.
- ``source`` is the domain: a heuristic matches events of its source, and one with none matches
  every source (``QueryMatchingHeuristics``' ``source_filter``).
- ``similarity_threshold``, ``next_heuristic_ids`` and ``is_terminal`` are kept and answered back;
  phronesis matches at memory's own floor (``heuristics.min_similarity``), one floor for all.
- ``condition_embedding`` is not taken: phronesis embeds the condition itself, with the same model
  GLADyS uses (all-MiniLM-L6-v2), so the vector always matches the model that searches it.
"""

from __future__ import annotations

import json
from typing import Any

from phronesis.exceptions import InvalidInputError, validated
from phronesis.gladys.status import named_as_sent
from phronesis.gladys.wire import memory_pb2
from phronesis.heuristics.models import Heuristic, HeuristicCreate, Origin

__all__ = ["KEPT", "action_of", "create_of", "message_of"]

KEPT = "gladys"
"""The attribute holding what GLADyS sent that phronesis has no field for."""

_ORIGINS: dict[str, Origin] = {
    "": "dev",
    "dev": "dev",
    "user": "dev",
    "test": "dev",
    "pack": "pack",
    "built_in": "pack",
    "builtin": "pack",
    "learned": "learned",
    "llm": "llm",
}
_ACTION_KEYS = ("message", "text", "response")
_WIRE_NAMES = {"action_text": "effects_json", "domain": "source"}


def action_of(effects_json: str, field: str = "heuristic.effects_json") -> tuple[str, dict[str, Any]]:
    """The action text an effect says, and the effect as sent; the field named when it says none."""
    try:
        effects = json.loads(effects_json)
    except json.JSONDecodeError as error:
        raise InvalidInputError(field, f"is not JSON ({error.msg})") from None
    if not isinstance(effects, dict):
        raise InvalidInputError(field, 'must be a JSON object, e.g. {"type": "suggest", "message": "..."}')
    for key in _ACTION_KEYS:
        value = effects.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip(), effects
    raise InvalidInputError(field, "has no action: give its message (or text, or response)")


def create_of(given: memory_pb2.Heuristic) -> HeuristicCreate:
    """What ``StoreHeuristic`` stores (validated as ``POST /v1/heuristics`` validates, errors naming
    the GLADyS field)."""
    action, effects = action_of(given.effects_json)
    kept: dict[str, Any] = {"effects": effects}
    if given.origin:
        kept["origin"] = given.origin
    if given.similarity_threshold:
        kept["similarity_threshold"] = given.similarity_threshold
    if given.next_heuristic_ids:
        kept["next_heuristic_ids"] = list(given.next_heuristic_ids)
    if given.is_terminal:
        kept["is_terminal"] = True
    fields: dict[str, Any] = {
        "condition_text": given.condition_text,
        "action_text": action,
        "origin": _ORIGINS.get(given.origin, "dev"),
        "domain": given.source,
        "attributes": {KEPT: kept},
    }
    if given.id:
        fields["id"] = given.id
    if given.name:
        fields["name"] = given.name
    if given.origin_id:
        fields["origin_id"] = given.origin_id
    if given.confidence:
        fields["confidence"] = given.confidence
    with named_as_sent(_WIRE_NAMES, prefix="heuristic."):
        return validated(HeuristicCreate, fields)


def message_of(heuristic: Heuristic) -> memory_pb2.Heuristic:
    """A stored heuristic as GLADyS reads one."""
    kept = heuristic.attributes.get(KEPT)
    kept = kept if isinstance(kept, dict) else {}
    sent = kept.get("effects")
    effects: dict[str, Any] = dict(sent) if isinstance(sent, dict) else {"type": "suggest"}
    said = next((key for key in _ACTION_KEYS if isinstance(effects.get(key), str)), "message")
    effects[said] = heuristic.action_text  # the action as it stands now (it may have been changed since)
    next_ids = kept.get("next_heuristic_ids")
    return memory_pb2.Heuristic(
        id=heuristic.id,
        name=heuristic.name or "",
        condition_text=heuristic.condition_text,
        similarity_threshold=float(kept.get("similarity_threshold") or 0.0),
        effects_json=json.dumps(effects),
        confidence=heuristic.confidence,
        origin=str(kept.get("origin") or heuristic.origin),
        origin_id=heuristic.origin_id or "",
        next_heuristic_ids=[str(i) for i in next_ids] if isinstance(next_ids, list) else [],
        is_terminal=bool(kept.get("is_terminal", False)),
        last_fired_ms=_ms(heuristic.last_fired_at),
        fire_count=heuristic.fire_count,
        success_count=heuristic.success_count,
        created_at_ms=_ms(heuristic.created_at),
        updated_at_ms=_ms(heuristic.updated_at),
        source=heuristic.domain,
    )


def _ms(at: Any) -> int:
    return 0 if at is None else int(at.timestamp() * 1000)

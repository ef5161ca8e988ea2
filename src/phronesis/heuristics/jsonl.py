"""Heuristics as JSON Lines: one ``HeuristicCreate`` per line, for import and export.

Shared by the HTTP API and the CLI. An export re-imports as is (ids, constraints and
current confidence kept; the evidence count is re-seeded from that confidence; examples and
counter-examples, given or learned, come back as given).
"""

from __future__ import annotations

from collections.abc import Sequence

from phronesis.exceptions import InvalidInputError
from phronesis.heuristics.examples import MAX_GIVEN, Example
from phronesis.heuristics.models import Heuristic, HeuristicCreate
from phronesis.jsonlines import validated_lines

__all__ = ["MAX_IMPORT_LINES", "export_line", "parse_jsonl"]

MAX_IMPORT_LINES = 50_000


def parse_jsonl(raw: bytes) -> list[HeuristicCreate]:
    """Validate every line before anything is written; the first bad line names itself."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInputError("body", "not UTF-8 text") from None
    items = validated_lines(text.splitlines(), HeuristicCreate, where=lambda n: f"line {n}", max_lines=MAX_IMPORT_LINES)
    if not items:
        raise InvalidInputError("body", "no heuristics in the import")
    return items


def export_line(heuristic: Heuristic, scope: Sequence[Example] = ()) -> str:
    """One heuristic as an import line, with its scope: what it was given and what it learned, as
    given examples (the newest ``MAX_GIVEN`` of each kind, as many as an import takes)."""

    def newest(kind: str) -> list[str]:
        return [e.text for e in scope if e.kind == kind][-MAX_GIVEN:]

    data = HeuristicCreate(
        id=heuristic.id,
        domain=heuristic.domain,
        name=heuristic.name,
        condition_text=heuristic.condition_text,
        action_text=heuristic.action_text,
        confidence=heuristic.confidence,
        origin=heuristic.origin,
        origin_id=heuristic.origin_id,
        locked=heuristic.locked,
        floor=heuristic.floor,
        ceiling=heuristic.ceiling,
        feedback_weight=heuristic.feedback_weight,
        attributes=heuristic.attributes,
        examples=newest("example"),
        counter_examples=newest("counter"),
    )
    return data.model_dump_json(exclude_none=True) + "\n"

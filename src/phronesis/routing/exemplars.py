"""Labelled exemplars for the local router, read from JSONL: ``{"text": …, "label": …}``.

A label is one of the five decisions, or an intent; an intent's decision comes from an
optional ``"decision"`` key on its lines (it must agree across them), else the fit's
default. The label ``oos`` marks an out-of-scope example. A bad line is reported with
its number and field, and nothing is fitted.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pydantic import ConfigDict, Field

from phronesis.jsonlines import validated_file, validated_lines
from phronesis.routing.decisions import Decision
from phronesis.schema import Schema

__all__ = ["OOS_LABEL", "Exemplar", "read_exemplars"]

OOS_LABEL = "oos"


class Exemplar(Schema):
    model_config = ConfigDict(extra="ignore", frozen=True)

    text: str = Field(min_length=1, max_length=2000)
    label: str = Field(min_length=1, max_length=128)
    decision: Decision | None = None

    @property
    def out_of_scope(self) -> bool:
        return self.label == OOS_LABEL


def parse_exemplar_lines(lines: Iterable[str], *, source: str) -> list[Exemplar]:
    return validated_lines(lines, Exemplar, where=lambda n: f"{source}:{n}")


def read_exemplars(path: Path) -> list[Exemplar]:
    return validated_file(path, Exemplar)

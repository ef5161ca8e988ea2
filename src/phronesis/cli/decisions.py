"""``phronesis decisions``: the decision records, as ``/v1/decisions``, each with its explanation in
words (``phronesis.explanations``)."""

from __future__ import annotations

from typing import Annotated, get_args

import typer

from phronesis.audit.models import DecisionKind, DecisionRecord
from phronesis.cli.base import JsonOption, TenantOption, decisions_app, emit, fail, with_engine
from phronesis.explanations import about, explained
from phronesis.tenants import DEFAULT_TENANT

KINDS: tuple[str, ...] = get_args(DecisionKind)


def _line(record: DecisionRecord) -> str:
    said = about(record)
    said = said if len(said) <= 50 else said[:49] + "…"
    return f"{record.created_at:%Y-%m-%d %H:%M:%S}  {record.id}  {record.kind}  {said!r}\n    {record.explanation}"


@decisions_app.command("list")
def list_decisions(
    kind: Annotated[str | None, typer.Option(help=f"Only this kind: {', '.join(KINDS)}.")] = None,
    subject: Annotated[str | None, typer.Option(help="Only decisions about this event, session, run or user.")] = None,
    limit: Annotated[int, typer.Option(min=1, max=1000)] = 20,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """The newest decisions, each with what it was about and why, in words."""
    if kind is not None and kind not in KINDS:
        raise fail(f"--kind: must be one of {', '.join(KINDS)}")
    chosen: DecisionKind | None = kind  # type: ignore[assignment]
    page = with_engine(
        lambda e: e.decisions.page(tenant, kind=chosen, subject_id=subject, limit=limit), reads_only=True
    )
    items = [explained(record) for record in page.items]
    emit(page.model_copy(update={"items": items}), as_json, lambda: "\n".join(map(_line, items)) or "no decisions")
    if page.total > len(items):
        typer.echo(f"(the newest {len(items)} of {page.total} shown: raise --limit)", err=True)


@decisions_app.command("show")
def show(record_id: str, as_json: JsonOption = False, tenant: TenantOption = DEFAULT_TENANT) -> None:
    """One decision: what it was about, what was decided and why, in words (--json: the whole record)."""
    record = explained(with_engine(lambda e: e.decisions.get(tenant, record_id), reads_only=True))
    emit(
        record,
        as_json,
        lambda: "\n".join(
            [
                f"{record.kind} decision {record.id} at {record.created_at.isoformat()}",
                f"about:   {about(record)}",
                f"decided: {record.action or '–'} (path {record.path})",
                f"why:     {record.explanation}",
            ]
        ),
    )

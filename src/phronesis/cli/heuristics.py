"""``phronesis heuristics add|update|delete|list|show|import|export``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from phronesis.cli.base import (
    JsonAlways,
    JsonOption,
    TenantOption,
    _read_input,
    emit,
    fail,
    heuristics_app,
    parsed,
    with_engine,
)
from phronesis.cli.remote import served
from phronesis.heuristics.jsonl import export_line, parse_jsonl
from phronesis.heuristics.models import Heuristic, HeuristicCreate, HeuristicCreated, HeuristicUpdate, Origin
from phronesis.tenants import DEFAULT_TENANT

if TYPE_CHECKING:
    from phronesis.engine import Engine


def _line(h: Heuristic) -> str:
    return f"{h.id}\t{h.confidence:.3f}\t{h.domain or '-'}\t{h.condition_text[:60]} → {h.action_text[:60]}"


_FLAGS = {
    "id": "--id",
    "domain": "--domain",
    "condition_text": "--condition",
    "action_text": "--action",
    "confidence": "--confidence",
    "origin": "--origin",
}
"""The models' fields as this group's options name them."""


@heuristics_app.command("add")
def add(
    condition: Annotated[str, typer.Option("--condition", help="When this situation arises…")],
    action: Annotated[str, typer.Option("--action", help="…do or say this.")],
    domain: Annotated[str, typer.Option(help="Event source / domain.")] = "",
    confidence: Annotated[
        float | None, typer.Option(help="Initial confidence in [0, 1] (default: heuristics.default_confidence, 0.5).")
    ] = None,
    origin: Annotated[str, typer.Option(help="dev | pack | learned | llm")] = "dev",
    heuristic_id: Annotated[str | None, typer.Option("--id", help="Choose the id.")] = None,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Add one heuristic; prints its id."""
    data = parsed(
        HeuristicCreate,
        {
            "id": heuristic_id,
            "domain": domain,
            "condition_text": condition,
            "action_text": action,
            "confidence": confidence,
            "origin": origin,
        },
        flags=_FLAGS,
    )
    created = served(
        tenant,
        lambda engine: engine.heuristics.create(tenant, data),
        lambda c: c.heuristics.create(data.model_dump(mode="json", exclude_unset=True)),
        answer=HeuristicCreated,
        load_index=False,
    )
    emit(created, as_json, lambda: created.id)
    if created.warning and not as_json:
        typer.echo(f"warning: {created.warning}", err=True)


@heuristics_app.command("update")
def update(
    heuristic_id: str,
    condition: Annotated[str | None, typer.Option("--condition", help="A new condition (re-embedded).")] = None,
    action: Annotated[str | None, typer.Option("--action", help="A new action.")] = None,
    domain: Annotated[str | None, typer.Option(help="Move it to another event source / domain.")] = None,
    confidence: Annotated[float | None, typer.Option(help="A new confidence (re-seeds its prior).")] = None,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Change a heuristic; every running server matches the change at once."""
    fields = {"condition_text": condition, "action_text": action, "domain": domain, "confidence": confidence}
    patch = parsed(HeuristicUpdate, {k: v for k, v in fields.items() if v is not None}, flags=_FLAGS)
    updated = with_engine(lambda engine: engine.heuristics.update(tenant, heuristic_id, patch))
    emit(updated, as_json, lambda: _line(updated))


@heuristics_app.command("delete")
def delete(heuristic_id: str, as_json: JsonOption = False, tenant: TenantOption = DEFAULT_TENANT) -> None:
    """Delete a heuristic; every running server stops matching it at once."""
    deleted = with_engine(lambda engine: engine.heuristics.delete(tenant, heuristic_id))
    emit(deleted, as_json, lambda: f"deleted {deleted.id}")


@heuristics_app.command("list")
def list_(
    domain: Annotated[str | None, typer.Option(help="Only this domain.")] = None,
    origin: Annotated[str | None, typer.Option(help="Only this origin.")] = None,
    limit: Annotated[int, typer.Option(min=1, max=100_000)] = 100,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """List heuristics: id, confidence, domain, condition → action."""
    if origin is not None and origin not in ("dev", "pack", "learned", "llm"):
        raise fail("--origin: must be one of dev, pack, learned, llm")
    chosen: Origin | None = origin  # type: ignore[assignment]
    page = with_engine(lambda e: e.heuristics.page(tenant, domain=domain, origin=chosen, limit=limit), reads_only=True)
    emit(page, as_json, lambda: "\n".join(_line(item) for item in page.items) or "no heuristics")
    if page.total > len(page.items):
        typer.echo(f"(the first {len(page.items)} of {page.total} shown: raise --limit)", err=True)


@heuristics_app.command("show")
def show(heuristic_id: str, as_json: JsonAlways = False, tenant: TenantOption = DEFAULT_TENANT) -> None:
    """Show one heuristic as JSON."""
    item = with_engine(lambda e: e.heuristics.get(tenant, heuristic_id), reads_only=True)
    typer.echo(item.model_dump_json(indent=2))


@heuristics_app.command("import")
def import_(
    path: Annotated[str, typer.Argument(help="JSON Lines file, or - (the default) for stdin.")] = "-",
    upsert: Annotated[
        bool,
        typer.Option(
            "--upsert", help="Replace a heuristic whose id exists (its fires and successes kept) instead of failing."
        ),
    ] = False,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Import heuristics from JSON Lines (a file, or stdin: `import < pack.jsonl`), all or nothing."""
    items = parse_jsonl_or_fail(_read_input(path))
    created = with_engine(lambda e: e.heuristics.add_many(tenant, items, upsert=upsert))
    result = {"imported": len(created), "ids": [h.id for h in created]}  # POST /v1/heuristics/import's answer
    emit(result, as_json, lambda: f"imported {len(created)} heuristics")


def parse_jsonl_or_fail(raw: bytes) -> list[HeuristicCreate]:
    from phronesis.exceptions import InvalidInputError

    try:
        return parse_jsonl(raw)
    except InvalidInputError as exc:
        raise fail(str(exc)) from None


@heuristics_app.command("export")
def export(
    path: Annotated[str, typer.Argument(help="Output file, or - for stdout.")] = "-",
    as_json: JsonAlways = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Export heuristics as JSON Lines (re-importable)."""

    async def collect(engine: Engine) -> list[Heuristic]:
        out: list[Heuristic] = []
        while True:
            page = await engine.heuristics.page(tenant, limit=1000, offset=len(out))
            out.extend(page.items)
            if len(out) >= page.total or not page.items:
                return out

    items = with_engine(collect)
    text = "".join(export_line(item) for item in items)
    if path == "-":
        sys.stdout.write(text)
        return
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise fail(f"cannot write {path}: {exc.strerror}") from None
    typer.echo(f"exported {len(items)} heuristics to {path}", err=True)

"""``phronesis route`` and ``phronesis routing fit|evaluate`` (seed 002)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from phronesis.cli.app import TenantOption, app, fail, routing_app, with_engine
from phronesis.engine import DEFAULT_TENANT, Engine
from phronesis.exceptions import InvalidInputError, NotFoundError
from phronesis.routing.exemplars import Exemplar, read_exemplars
from phronesis.routing.models import RouteResult
from phronesis.routing.sessions import NewSession

JsonlPath = Annotated[
    Path, typer.Argument(help='JSONL: one {"text": …, "label": …} per line (label oos = out of scope).')
]


def _read(path: Path) -> list[Exemplar]:
    try:
        return read_exemplars(path)
    except InvalidInputError as exc:
        raise fail(str(exc)) from None


@app.command()
def route(
    query: Annotated[str, typer.Argument(help="The user's message.")],
    session: Annotated[str, typer.Option("--session", help="Session id; created if it does not exist.")],
    router: Annotated[str | None, typer.Option(help="local, llm or cascade (default: settings).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole result as JSON.")] = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Route one query: RETRIEVE, REASON_ONLY, USE_TOOL, CLARIFY or ESCALATE, and why."""

    async def work(engine: Engine) -> RouteResult:
        try:
            await engine.routing.session(tenant, session, turns=0)
        except NotFoundError:
            await engine.routing.create_session(tenant, NewSession(id=session))
        return await engine.route(session, query, tenant=tenant, router=router)

    result = with_engine(work)
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
        return
    confidence = "-" if result.confidence is None else f"{result.confidence:.2f}"
    typer.echo(f"{result.decision or 'HUMAN_OWNED'}  confidence {confidence} ({result.band or '-'})  via {result.path}")
    typer.echo(f"why: {result.reasoning}")
    if result.message:
        typer.echo(f"say: {result.message}")
    typer.echo(f"decision id: {result.decision_id}")


@routing_app.command("fit")
def fit(
    exemplars: JsonlPath,
    oos: Annotated[Path | None, typer.Option("--oos", help="Out-of-scope examples (JSONL).")] = None,
    val: Annotated[Path | None, typer.Option("--val", help="Validation examples to calibrate on (JSONL).")] = None,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Fit the tenant's local router on labelled exemplars and save it (replaces the previous one)."""
    train = _read(exemplars)
    oos_lines = _read(oos) if oos else []
    val_lines = _read(val) if val else []
    console = Console(stderr=True)

    async def work(engine: Engine) -> dict[str, object]:
        with console.status("fitting") as status:
            router, version = await engine.routing.fit(
                tenant, train, oos=oos_lines, validation=val_lines, progress=lambda m: status.update(m)
            )
        return {"tenant": tenant, "version": version, "labels": len(router.labels)} | router.calibration

    typer.echo(json.dumps(with_engine(work), indent=2))


@routing_app.command("evaluate")
def evaluate(
    test: JsonlPath,
    per_class: Annotated[bool, typer.Option("--per-class/--no-per-class", help="Include per-class figures.")] = True,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Print JSON: in-scope accuracy, out-of-scope recall and precision, per-class figures."""
    examples = _read(test)
    metrics = with_engine(lambda engine: engine.routing.evaluate(tenant, examples))
    if not per_class:
        metrics.pop("per_class", None)
    typer.echo(json.dumps(metrics, indent=2))

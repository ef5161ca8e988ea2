"""``phronesis route`` and ``phronesis routing feedback|fit|evaluate`` (seed 002)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from phronesis.cli.base import (
    JsonAlways,
    JsonOption,
    TenantOption,
    app,
    emit,
    fail,
    parsed,
    routing_app,
    with_engine,
)
from phronesis.exceptions import InvalidInputError, NotFoundError
from phronesis.routing.exemplars import Exemplar, read_exemplars
from phronesis.routing.models import RouteResult
from phronesis.routing.route_feedback import RouteFeedbackIn
from phronesis.routing.sessions import NewSession
from phronesis.tenants import DEFAULT_TENANT

if TYPE_CHECKING:
    from phronesis.engine import Engine

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
    new = parsed(NewSession, dict(id=session), option="--session")

    async def work(engine: Engine) -> RouteResult:
        try:
            await engine.routing.session(tenant, session, turns=0)
        except NotFoundError:
            await engine.routing.create_session(tenant, new)
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


@routing_app.command("feedback")
def feedback(
    decision_id: Annotated[str, typer.Argument(help="The routing decision (its id is printed by phronesis route).")],
    session: Annotated[str, typer.Option("--session", help="The session it was decided in.")],
    correct: Annotated[bool, typer.Option("--correct/--wrong", help="Was the decision right?")],
    expected: Annotated[
        str | None, typer.Option("--expected", help="What it should have been (with --wrong): RETRIEVE, USE_TOOL, …")
    ] = None,
    tool: Annotated[str | None, typer.Option("--tool", help="The tool it should have used (USE_TOOL).")] = None,
    note: Annotated[str | None, typer.Option(help="Why.")] = None,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Say whether a routing decision was right; the last rating wins.
    "phronesis routing fit --from-feedback" learns from it."""
    fields = {"decision_id": decision_id, "correct": correct, "expected_tool": tool, "note": note}
    flags = {"expected_decision": "--expected", "expected_tool": "--tool", "correct": "--correct/--wrong"}
    body = parsed(RouteFeedbackIn, fields | {"expected_decision": expected and expected.upper()}, flags=flags)
    rated = with_engine(
        lambda engine: engine.routing.rate(tenant, body.decision_id, body, session_id=session), flags=flags
    )
    emit(rated, as_json, lambda: f"{rated.decision_id}: {rated.decided} is {rated.outcome}")


@routing_app.command("fit")
def fit(
    exemplars: JsonlPath,
    oos: Annotated[Path | None, typer.Option("--oos", help="Out-of-scope examples (JSONL).")] = None,
    val: Annotated[Path | None, typer.Option("--val", help="Validation examples to calibrate on (JSONL).")] = None,
    from_feedback: Annotated[
        bool,
        typer.Option(
            "--from-feedback",
            help="Add the queries of rated routing decisions: right ones with their decision, wrong ones "
            "with the decision they should have had (route-feedback).",
        ),
    ] = False,
    as_json: JsonAlways = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Fit the tenant's local router on labelled exemplars and save it (replaces the previous one)."""
    train = _read(exemplars)
    oos_lines = _read(oos) if oos else []
    val_lines = _read(val) if val else []
    console = Console(stderr=True)

    async def work(engine: Engine) -> dict[str, object]:
        taught = await engine.routing.taught_exemplars(tenant) if from_feedback else []
        with console.status("fitting") as status:
            router, version = await engine.routing.fit(
                tenant, [*train, *taught], oos=oos_lines, validation=val_lines, progress=lambda m: status.update(m)
            )
        return {
            "tenant": tenant,
            "version": version,
            "labels": len(router.labels),
            "from_feedback": len(taught),
        } | router.calibration

    typer.echo(json.dumps(with_engine(work), indent=2))


@routing_app.command("evaluate")
def evaluate(
    test: JsonlPath,
    per_class: Annotated[bool, typer.Option("--per-class/--no-per-class", help="Include per-class figures.")] = True,
    as_json: JsonAlways = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Print JSON: in-scope accuracy, out-of-scope recall and precision, per-class figures."""
    examples = _read(test)
    metrics = with_engine(lambda engine: engine.routing.evaluate(tenant, examples))
    if not per_class:
        metrics.pop("per_class", None)
    typer.echo(json.dumps(metrics, indent=2))

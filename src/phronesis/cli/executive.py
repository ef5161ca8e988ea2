"""``phronesis decide``, ``phronesis feedback``, ``phronesis executive report|reevaluate``."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from phronesis.cli.base import JsonOption, TenantOption, app, emit, executive_app, fail, with_engine
from phronesis.cli.remote import served
from phronesis.executive.events import EventDecision
from phronesis.executive.report import StrategyReport, build_report
from phronesis.feedback.models import FeedbackReceipt
from phronesis.tenants import DEFAULT_TENANT

if TYPE_CHECKING:
    from phronesis.engine import Engine
    from phronesis.executive.reevaluation import ReevaluationSummary


def describe(decision: EventDecision) -> str:
    """One line saying what was decided and why (also used by ``phronesis demo``): the decision's own
    explanation, the sentence its record gives."""
    if decision.explanation:
        return f"[{decision.decision_path}] {decision.explanation}"
    why = {  # a server from before explanations
        "heuristic": f"heuristic {decision.matched_heuristic_id} fired (confidence {decision.predicted_success:.2f}"
        f" ≥ threshold {decision.metadata.get('threshold', 0):.2f})",
        "llm": f"asked the LLM ({len(decision.metadata.get('shown_candidate_ids', []))} candidates shown)",
        "fallback": f"the LLM failed ({decision.metadata.get('llm_error', 'no response')})",
        "rejected": f"nothing fired ({decision.reason})",
    }[decision.decision_path]
    if decision.reason == "emergency_fast_path":
        why = f"emergency fast path: heuristic {decision.matched_heuristic_id} at threat ≥ 0.9"
    return f"[{decision.decision_path}] {why}"


@app.command()
def decide(
    text: Annotated[str, typer.Argument(help="The event text.")],
    source: Annotated[str, typer.Option(help="Where the event came from.")] = "",
    immediate: Annotated[bool, typer.Option("--immediate/--not-immediate", help="May the LLM be asked now?")] = True,
    urgency: Annotated[float, typer.Option(help="0 (not urgent) … 1 (immediate).")] = 0.0,
    threat: Annotated[float | None, typer.Option(help="Threat salience in [0, 1].")] = None,
    user: Annotated[str | None, typer.Option(help="User id (the default A/B key).")] = None,
    strategy: Annotated[str | None, typer.Option(help="Force a strategy.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the full decision as JSON.")] = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Decide how to respond to an event: fire a learned heuristic or ask the LLM."""
    fields: dict[str, Any] = {"source": source, "immediate": immediate, "urgency": urgency, "strategy": strategy}
    if threat is not None:
        fields["salience"] = {"threat": threat}
    if user is not None:
        fields["user_id"] = user
    decision = served(
        tenant,
        lambda engine: engine.decide_event(text, tenant=tenant, **fields),
        lambda client: client.executive.decide({"text": text, **fields}),
        answer=EventDecision,
        flags={"salience": "--threat", "user_id": "--user"},
    )
    if as_json:
        typer.echo(decision.model_dump_json(indent=2))
        return
    typer.echo(describe(decision))
    if decision.response_text:
        typer.echo(decision.response_text)
    typer.echo(f"response id: {decision.response_id}")


@app.command()
def feedback(
    response_id: Annotated[str, typer.Argument(help="The response id a decision returned.")],
    positive: Annotated[bool, typer.Option("--positive", help="It was right.")] = False,
    negative: Annotated[bool, typer.Option("--negative", help="It was wrong.")] = False,
    user_score: Annotated[int | None, typer.Option(help="User score: 1 bad, 2 meh, 3 good.")] = None,
    dev_score: Annotated[int | None, typer.Option(help="Developer score 1…5.")] = None,
    key: Annotated[str | None, typer.Option(help="Idempotency key (default: one feedback per response).")] = None,
    comment: Annotated[str | None, typer.Option(help="Free text kept with the feedback.")] = None,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Rate a decision; a fired heuristic learns from it, a good LLM answer may become a heuristic."""
    ratings = {"--positive": positive, "--negative": negative}
    ratings |= {"--user-score": user_score is not None, "--dev-score": dev_score is not None}
    given = [flag for flag, value in ratings.items() if value]
    # named as typed, not as the API's "give exactly one of rating, user_score or dev_score"; and a
    # pair flag let the last one win: a contradiction changed a confidence
    if len(given) > 1:
        raise fail(f"{', '.join(given)}: give one of them, not both")
    if not given:
        raise fail(f"give one of {', '.join(list(ratings)[:-1])} or {list(ratings)[-1]}")
    fields: dict[str, Any] = {"user_score": user_score, "dev_score": dev_score, "comment": comment}
    if positive or negative:
        fields["rating"] = "positive" if positive else "negative"
    if key is not None:
        fields["idempotency_key"] = key
    receipt = served(
        tenant,
        lambda engine: engine.feedback(response_id, tenant=tenant, **fields),
        lambda client: client.executive.feedback(
            {"response_id": response_id, **{k: v for k, v in fields.items() if v is not None}}
        ),
        answer=FeedbackReceipt,
        flags={"rating": "--positive/--negative"},
    )
    moved = (
        f" ({receipt.old_confidence:.3f} → {receipt.new_confidence:.3f})"
        if receipt.old_confidence is not None and receipt.new_confidence is not None
        else ""
    )
    target = f" heuristic {receipt.heuristic_id}" if receipt.heuristic_id else ""
    # a neutral score withdraws the rating standing on the fire, not the heuristic (a lesson withdrawn is)
    neutral = receipt.effect == "withdrawn" and receipt.signal == "neutral"
    effect = "took back the earlier rating of" if neutral else receipt.effect
    line = f"{receipt.signal} feedback: {effect}{target}{moved}"
    emit(receipt, as_json, lambda: line + (f"\n{receipt.detail}" if receipt.detail else ""))


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


REPORT_COLUMNS = (
    "strategy",
    "decisions",
    "by path",
    "LLM calls",
    "tokens",
    "mean predicted",
    "rated +/−/0",
    "positive rate (95% CI)",
)


def _report_rows(reports: list[StrategyReport]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for r in reports:
        ci = f" [{r.positive_rate_ci[0]:.0%}, {r.positive_rate_ci[1]:.0%}]" if r.positive_rate_ci else ""
        rows.append(
            (
                r.strategy,
                str(r.decisions),
                ", ".join(f"{path} {count}" for path, count in sorted(r.by_path.items())),
                str(r.llm_calls),
                str(r.tokens),
                "-" if r.mean_predicted_success is None else f"{r.mean_predicted_success:.2f}",
                f"{r.positive}/{r.negative}/{r.neutral}",
                _percent(r.positive_rate) + ci,
            )
        )
    return rows


def report_table(reports: list[StrategyReport]) -> Table:
    table = Table(title="Executive decisions per strategy")
    for column in REPORT_COLUMNS:
        table.add_column(column, no_wrap=True)
    for row in _report_rows(reports):
        table.add_row(*row)
    return table


def report_blocks(reports: list[StrategyReport]) -> str:
    """The report one strategy at a time, a line per figure: what a terminal too narrow for the table
    shows (at 80 columns the table cut its headers to "strate…")."""
    width = max(len(column) for column in REPORT_COLUMNS[1:])
    blocks = []
    for strategy, *figures in _report_rows(reports):
        lines = [f"  {column:<{width}}  {value}" for column, value in zip(REPORT_COLUMNS[1:], figures, strict=True)]
        blocks.append("\n".join([strategy, *lines]))
    return "Executive decisions per strategy\n\n" + "\n\n".join(blocks)


@executive_app.command("report")
def report(
    since_days: Annotated[float | None, typer.Option(help="Only decisions of the last N days.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Per strategy: decisions by path, LLM calls, mean predicted success, rated outcomes with CIs (A/B)."""
    if since_days is not None and since_days <= 0:
        raise fail("--since-days must be positive")

    async def work(engine: Engine) -> list[StrategyReport]:
        since = None if since_days is None else engine.clock.now() - timedelta(days=since_days)
        return build_report(await engine.decisions.summarize(tenant, kind="executive", since=since))

    reports = with_engine(work)
    if as_json:
        from phronesis.api.bodies import ExecutiveReport

        emit(ExecutiveReport(strategies=reports), True, str)
    elif not reports:
        typer.echo("no executive decisions yet")
    else:
        console, table = Console(), report_table(reports)
        needs = console.measure(table, options=console.options.update_width(10_000)).maximum
        if needs > console.width:  # it would cut its columns: one block per strategy
            typer.echo(report_blocks(reports))
        else:
            console.print(table)


@executive_app.command("reevaluate")
def reevaluate_command(
    since_hours: Annotated[float, typer.Option(help="Re-decide LLM-path events of the last N hours.")] = 24.0,
    limit: Annotated[int, typer.Option(help="At most this many events.")] = 1000,
    batch_size: Annotated[int, typer.Option(help="Events decided concurrently.")] = 16,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Sleep cycle (F-25): re-decide recent LLM-path events without candidates; record convergence."""
    if since_hours <= 0 or limit < 1 or batch_size < 1:
        raise fail("--since-hours, --limit and --batch-size must be positive")

    async def work(engine: Engine) -> ReevaluationSummary:
        since = engine.clock.now() - timedelta(hours=since_hours)
        engine.executive.require_llm("re-evaluation")  # fail before drawing a progress bar
        with Progress(transient=True) as progress:
            task = progress.add_task("re-evaluating", total=None)
            from phronesis.executive.reevaluation import reevaluate

            return await reevaluate(
                engine.executive,
                tenant,
                since=since,
                limit=limit,
                batch_size=batch_size,
                progress=lambda n: progress.advance(task, n),
                on_total=lambda total: progress.update(task, total=total),
            )

    summary = with_engine(work, load_index=True)
    emit(
        summary,
        as_json,
        lambda: (
            f"re-evaluated {summary.decided} of {summary.events} events; "
            f"{summary.converged} converged with a heuristic; {summary.failed} failed"
        ),
    )

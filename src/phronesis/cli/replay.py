"""``phronesis replay routing``: what another setting would have done with the logged decisions."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from pydantic import ValidationError

from phronesis.cli.app import TenantOption, invalid, replay_app, with_engine
from phronesis.engine import DEFAULT_TENANT, Engine
from phronesis.replay import ReplayIn, ReplayReport, run_replay


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def _table(report: ReplayReport) -> str:
    now, then = report.current_success, report.replayed_success
    interval = f" (95 % {then.interval[0]:.1%}–{then.interval[1]:.1%})" if then.interval else ""
    lines = [
        f"{report.decision_point} {report.parameter}: {report.current} → {report.value}",
        f"decisions replayed: {report.decisions}, changed: {report.changed}",
        f"LLM calls: {report.llm_calls_logged} logged → {report.llm_calls_replayed} replayed",
        f"success now: {_pct(now.rate)} of {now.covered} rated",
        f"success replayed: {_pct(then.rate)}{interval} on {then.covered} covered "
        f"({report.coverage:.0%} of the rated decisions)",
        f"IPS: {report.ips}",
    ]
    lines += [f"  {c.decisions:>5}  {c.logged}  →  {c.replayed}" for c in report.changes]
    return "\n".join(lines)


@replay_app.command("routing")
def routing(
    cascade_threshold: Annotated[
        float, typer.Option("--cascade-threshold", help="The routing.cascade_threshold to replay.")
    ],
    days: Annotated[float, typer.Option("--days", help="How far back to replay.")] = 30.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Replay the cascade threshold on the logged cascade decisions: changes, LLM calls, estimated success."""
    try:
        body = ReplayIn(decision_point="routing", parameter="cascade_threshold", value=cascade_threshold, days=days)
    except ValidationError as exc:
        raise invalid(exc, option="--" + str(exc.errors()[0]["loc"][0]).replace("value", "cascade-threshold")) from None

    async def work(engine: Engine) -> ReplayReport:
        return await run_replay(engine, tenant, body)

    report = with_engine(work)
    typer.echo(json.dumps(report.model_dump(mode="json"), indent=2) if as_json else _table(report))

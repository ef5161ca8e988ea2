"""``phronesis replay executive|routing|admission|proactive``: what another setting would have done
with the logged decisions; ``phronesis tune …``: the setting they argue for, with the table behind it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer
from pydantic import ValidationError

from phronesis.cli.base import TenantOption, app, fail, invalid, replay_app, with_engine
from phronesis.executive.factory import STRATEGY_NAMES
from phronesis.proactive.settings import TrustLevelName
from phronesis.replay.models import DecisionPoint, ReplayIn, ReplayReport
from phronesis.replay.tune import TuneIn, TuneReport
from phronesis.tenant_settings import AppliedSetting, ApplyIn, SettingValue, shown
from phronesis.tenants import DEFAULT_TENANT

if TYPE_CHECKING:
    from phronesis.engine import Engine

DaysOption = Annotated[float, typer.Option("--days", help="How far back to replay.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the report as JSON.")]


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def _interval(interval: tuple[float, float] | None) -> str:
    return f" (95 % {interval[0]:.1%}–{interval[1]:.1%})" if interval else ""


def _table(report: ReplayReport) -> str:
    now, then = report.current_success, report.replayed_success
    interval = _interval(then.interval)
    lines = [
        f"{report.decision_point} {report.parameter}: {shown(report.current)} → {shown(report.value)}",
        f"decisions replayed: {report.decisions}, changed: {report.changed}",
        f"LLM calls: {report.llm_calls_logged} logged → {report.llm_calls_replayed} replayed",
    ]
    proactive = report.sent_logged is not None
    if proactive:
        lines.append(f"messages sent: {report.sent_logged} logged → {report.sent_replayed} replayed")
    if report.handoffs_logged is not None:
        unsettled = f" (and {report.handoffs_unsettled} not settled)" if report.handoffs_unsettled else ""
        lines.append(
            f"handed to a person: {report.handoffs_logged} logged → {report.handoffs_replayed} replayed{unsettled}"
        )
    what, of = ("engagement", "its sends") if proactive else ("success", "the rated decisions")
    lines += [
        f"{what} now: {_pct(now.rate)} of {now.covered} rated",
        f"{what} replayed: {_pct(then.rate)}{interval} on {then.covered} covered ({report.coverage:.0%} of {of})",
    ]
    for weighted in (report.ips, report.snips):
        if weighted is not None:
            lines.append(
                f"{weighted.method.upper()}: {_pct(weighted.rate)}{_interval(weighted.interval)} on "
                f"{weighted.decisions} {'of the sends it makes' if proactive else 'rated'} "
                f"({weighted.coverage:.0%} of them)"
            )
    lines.append(f"weighting: {report.weighting}")
    lines += [
        f"  {c.decisions:>5}  {c.logged}  →  {c.replayed}" + (f"  (e.g. {', '.join(c.examples)})" if c.examples else "")
        for c in report.changes
    ]
    return "\n".join(lines)


def _replay(
    point: DecisionPoint,
    option: str,
    value: SettingValue,
    days: float,
    as_json: bool,
    tenant: str,
    parameter: str | None = None,
) -> None:
    try:
        body = ReplayIn.model_validate({"decision_point": point, "parameter": parameter, "value": value, "days": days})
    except ValidationError as exc:
        raise invalid(exc, option="--" + str(exc.errors()[0]["loc"][0]).replace("value", option)) from None

    async def work(engine: Engine) -> ReplayReport:
        from phronesis.replay import run_replay

        return await run_replay(engine, tenant, body)

    report = with_engine(work)
    typer.echo(json.dumps(report.model_dump(mode="json"), indent=2) if as_json else _table(report))


@replay_app.command("routing")
def routing(
    cascade_threshold: Annotated[
        float | None, typer.Option("--cascade-threshold", help="The routing.cascade_threshold to replay.")
    ] = None,
    high_threshold: Annotated[
        float | None,
        typer.Option("--high-threshold", help="The routing.high_threshold to replay: at or above it, a turn proceeds."),
    ] = None,
    low_threshold: Annotated[
        float | None,
        typer.Option("--low-threshold", help="The routing.low_threshold to replay: below it, a turn is escalated."),
    ] = None,
    days: DaysOption = 30.0,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Replay the cascade threshold (which turns ask the LLM) or a confidence band's threshold
    (which turns proceed, ask or go to a human) on the logged routing decisions: changes, LLM
    calls, estimated success from route feedback."""
    parameter, value = _one_of(
        cascade_threshold=cascade_threshold, high_threshold=high_threshold, low_threshold=low_threshold
    )
    _replay("routing", parameter.replace("_", "-"), value, days, as_json, tenant, parameter)


def _one_of(**given: SettingValue | None) -> tuple[str, SettingValue]:
    """The one replayed setting a command was given, as (parameter, value): a replay varies one."""
    chosen = [(name, value) for name, value in given.items() if value is not None]
    if len(chosen) != 1:
        options = " or ".join("--" + name.replace("_", "-") for name in given)
        raise fail(f"give one of {options}" if not chosen else f"give only one of {options}")
    return chosen[0]


@replay_app.command("executive")
def executive(
    heuristic_threshold: Annotated[
        float | None, typer.Option("--heuristic-threshold", help="The executive.heuristic_threshold to replay.")
    ] = None,
    personality_bias: Annotated[
        float | None,
        typer.Option(
            "--personality-bias",
            help="The executive.personality_bias to replay (-0.5 to 0.5): the default for events without their own.",
        ),
    ] = None,
    threshold_reduction: Annotated[
        float | None,
        typer.Option("--threshold-reduction", help="urgency_tiered: threshold reduction per urgency."),
    ] = None,
    immediate_min: Annotated[
        float | None, typer.Option("--immediate-min", help="urgency_tiered: the urgency the immediate tier starts at.")
    ] = None,
    soon_min: Annotated[
        float | None, typer.Option("--soon-min", help="urgency_tiered: the urgency the soon tier starts at.")
    ] = None,
    reasonable_similarity: Annotated[
        float | None,
        typer.Option("--reasonable-similarity", help="urgency_tiered: the similarity of a reasonable match."),
    ] = None,
    high_similarity: Annotated[
        float | None, typer.Option("--high-similarity", help="urgency_tiered: the similarity of a high match.")
    ] = None,
    strategy: Annotated[
        str | None,
        typer.Option(
            "--strategy",
            help=f"The decision strategy to replay on every logged event: {', '.join(STRATEGY_NAMES)}.",
        ),
    ] = None,
    days: DaysOption = 30.0,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Replay the heuristic threshold or the default personality bias on the logged heuristic-first
    decisions, one of the urgency design's cut-offs on the urgency-tiered ones, or another
    strategy on every logged event: which heuristic would fire instead, LLM calls, estimated
    success (IPS and SNIPS where choices were drawn)."""
    parameter, value = _one_of(
        heuristic_threshold=heuristic_threshold,
        personality_bias=personality_bias,
        threshold_reduction=threshold_reduction,
        immediate_min=immediate_min,
        soon_min=soon_min,
        reasonable_similarity=reasonable_similarity,
        high_similarity=high_similarity,
        strategy=strategy,
    )
    option = parameter.replace("_", "-")
    if parameter not in ("heuristic_threshold", "personality_bias", "strategy"):
        parameter = f"urgency.{parameter}"
    _replay("executive", option, value, days, as_json, tenant, parameter)


@replay_app.command("admission")
def admission(
    low_similarity: Annotated[
        float | None,
        typer.Option("--low-similarity", help="The admission.low_similarity (the pre-filter's) to replay."),
    ] = None,
    duplicate_threshold: Annotated[
        float | None,
        typer.Option("--duplicate-threshold", help="The admission.duplicate_threshold (the judges') to replay."),
    ] = None,
    days: DaysOption = 30.0,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Replay the pre-filter's low similarity threshold (runs judged or added without a judge, LLM
    calls) or the duplicate threshold (the rule judge's verdicts; the LLM judge's hint) on the
    logged admissions, with the estimated success from admission feedback."""
    parameter, value = _one_of(low_similarity=low_similarity, duplicate_threshold=duplicate_threshold)
    _replay("admission", parameter.replace("_", "-"), value, days, as_json, tenant, parameter)


@replay_app.command("proactive")
def proactive(
    level: Annotated[
        TrustLevelName | None,
        typer.Option("--level", help="The trust level replayed (with --score-threshold or --daily-cap)."),
    ] = None,
    score_threshold: Annotated[
        float | None, typer.Option("--score-threshold", help="The level's score threshold (0-10) to replay.")
    ] = None,
    daily_cap: Annotated[
        float | None, typer.Option("--daily-cap", help="The level's daily cap (whole messages a day) to replay.")
    ] = None,
    relevance_weight: Annotated[
        float | None, typer.Option("--relevance-weight", help="The composite's relevance weight (0-1) to replay.")
    ] = None,
    timing_weight: Annotated[
        float | None, typer.Option("--timing-weight", help="The composite's timing weight (0-1) to replay.")
    ] = None,
    urgency_weight: Annotated[
        float | None, typer.Option("--urgency-weight", help="The composite's urgency weight (0-1) to replay.")
    ] = None,
    days: DaysOption = 30.0,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Replay one trust level's score threshold or daily cap on its users' logged cycles, or one
    weight of the composite on every level's: messages sent or not, estimated engagement (IPS and
    SNIPS where exploration was on)."""
    option, value = _one_of(
        score_threshold=score_threshold,
        daily_cap=daily_cap,
        relevance_weight=relevance_weight,
        timing_weight=timing_weight,
        urgency_weight=urgency_weight,
    )
    if option in ("score_threshold", "daily_cap"):
        if level is None:
            what = option.replace("_", " ")
            raise fail(f"--level: the trust level whose {what} is replayed (new, building, established, deep)")
        parameter = f"{option}.{level}"
    elif level is not None:
        raise fail(
            "--level: a weight is replayed on every level's cycles; --level goes with --score-threshold or --daily-cap"
        )
    else:
        parameter = "weight." + option.removesuffix("_weight")
    _replay("proactive", option.replace("_", "-"), value, days, as_json, tenant, parameter)


def _cell(value: SettingValue) -> str:
    return value if isinstance(value, str) else f"{value:.2f}"


def _tune_table(report: TuneReport) -> str:
    if not report.decisions:
        return (
            f"{report.decision_point} {report.parameter}: now {report.current}; no logged decisions in the "
            "window: nothing to tune on (--days to look further back)"
        )
    proactive = report.decision_point == "proactive"
    bands = bool(report.rows) and report.rows[0].handoffs is not None
    # proactive: a threshold costs no LLM call; what it changes is the messages sent and engagement;
    # routing's bands: the turns handed to a person
    gain, what = ("sent", "engaged") if proactive else ("to person", "success") if bands else ("LLM calls", "success")
    width = max(6, *(len(_cell(row.value)) for row in report.rows))
    lines = [
        f"{report.decision_point} {report.parameter}: now {shown(report.current)}, "
        + (f"proposed {shown(report.proposed)}" if report.met else "no value meets the objective: keep it"),
        f"objective: {report.objective}",
        f"weighting: {report.weighting}",
        f"decisions: {report.decisions}, rated: {report.rated}",
        f"{'value':>{width}}  {'changed':>7}  {gain:>9}  {'' if proactive or bands else 'avoided':>7}  "
        f"{what:>8}  {'95 %':>13}  {'method':>6}  {'coverage':>8}",
    ]
    for row in report.rows:
        low_high = f"{row.interval[0]:.1%}–{row.interval[1]:.1%}" if row.interval else "–"
        mark = "  ← proposed" if report.met and row.value == report.proposed else ""
        mark = mark or ("  (now)" if row.value == report.current else "")
        avoided = "" if proactive or bands else row.llm_calls_avoided
        coverage = "–" if proactive and not row.sent else f"{row.coverage:.0%}"
        spent = row.sent if proactive else row.handoffs if bands else row.llm_calls
        lines.append(
            f"{_cell(row.value):>{width}}  {row.changed:>7}  {spent:>9}  {avoided:>7}  "
            f"{_pct(row.success):>8}  {low_high:>13}  {row.method:>6}  {coverage:>8}"
            f"{'' if row.why_not is None else f'  ✗ {row.why_not}'}{mark}"
        )
    return "\n".join(lines)


@app.command("tune")
def tune_command(
    decision_point: Annotated[DecisionPoint, typer.Argument(help="executive, routing, admission or proactive.")],
    level: Annotated[
        TrustLevelName | None,
        typer.Option("--level", help="proactive: the trust level whose score threshold is tuned (default new)."),
    ] = None,
    parameter: Annotated[
        str | None,
        typer.Option(
            "--parameter",
            help="The setting to tune, when not the point's first: e.g. personality_bias or strategy (executive), "
            "duplicate_threshold (admission), weight.relevance or daily_cap.new (proactive).",
        ),
    ] = None,
    days: DaysOption = 30.0,
    min_coverage: Annotated[
        float, typer.Option("--min-coverage", help="The least share of rated decisions an estimate must cover.")
    ] = 0.8,
    apply: Annotated[
        bool, typer.Option("--apply", help="Apply the proposal to the tenant (recorded as a decision).")
    ] = False,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Propose the threshold that avoids the most LLM calls (proactive: sends the most messages)
    without lowering the estimated success, from the logged decisions, with the replay of every
    value behind it. Changes nothing unless --apply: then the tenant's decisions use it from the
    next one on, in every process."""
    if level is not None and decision_point != "proactive":
        raise fail("--level: only proactive has trust levels")
    if level is not None and parameter is not None:
        raise fail("--level: give either --level (a score threshold) or --parameter")
    try:
        body = TuneIn.model_validate(
            {
                "decision_point": decision_point,
                "parameter": parameter if level is None else f"score_threshold.{level}",
                "days": days,
                "min_coverage": min_coverage,
            }
        )
    except ValidationError as exc:
        raise invalid(exc, option="--" + str(exc.errors()[0]["loc"][0]).replace("_", "-")) from None

    async def work(engine: Engine) -> tuple[TuneReport, AppliedSetting | None]:
        from phronesis.replay import tune

        report = await tune(engine, tenant, body)
        if not apply or report.proposed == report.current:
            return report, None
        note = f"phronesis tune {decision_point}: {report.objective}"
        change = ApplyIn(value=report.proposed, note=note[:1000])
        return report, await engine.tenant_settings.apply(tenant, report.setting, change)

    report, applied = with_engine(work)
    if as_json:
        typer.echo(
            json.dumps(
                report.model_dump(mode="json") | {"applied": applied and applied.model_dump(mode="json")}, indent=2
            )
        )
        return
    typer.echo(_tune_table(report))
    if applied is not None:
        typer.echo(
            f"applied: {applied.name} = {shown(applied.value)} for tenant {tenant} (decision {applied.decision_id})"
        )
    elif apply:
        typer.echo(f"nothing applied: the proposal is the current value ({shown(report.current)})")

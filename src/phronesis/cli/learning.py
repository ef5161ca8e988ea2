"""``phronesis heuristics fire|history``, ``phronesis observe`` and ``phronesis learning sweep`` (seed 001)."""

from __future__ import annotations

from typing import Annotated

import typer

from phronesis.cli.base import JsonOption, TenantOption, app, emit, heuristics_app, learning_app, with_engine
from phronesis.tenants import DEFAULT_TENANT


@heuristics_app.command("fire")
def fire(
    heuristic_id: Annotated[str, typer.Argument(help="The heuristic that fired.")],
    event_id: Annotated[str, typer.Option("--event-id", help="The event it fired for.")],
    source: Annotated[str, typer.Option(help="The event's source.")] = "",
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Record that a heuristic fired; prints the fire id (rate it with "phronesis feedback FIRE_ID")."""
    recorded = with_engine(
        lambda engine: engine.record_fire(heuristic_id, tenant=tenant, event_id=event_id, source=source)
    )
    emit(recorded, as_json, lambda: recorded.id)


@heuristics_app.command("history")
def history(
    heuristic_id: Annotated[str, typer.Argument(help="The heuristic.")],
    limit: Annotated[int, typer.Option(min=1, max=100_000)] = 1000,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Confidence over time: when, old → new, and the signal that moved it."""
    page = with_engine(lambda engine: engine.learning.history(tenant, heuristic_id, limit=limit))
    entries = page.items[::-1]  # the latest ``limit`` steps, read oldest to newest

    def lines() -> str:
        from phronesis.heuristics.channel import OUTCOMES

        out = []
        for entry in entries:
            sign = f"{'+' if entry.positive else '-'}{entry.magnitude:g}"
            if entry.helped_share is not None:  # soft: part for, part against
                sign = f"{entry.helped_share:.2f} for, {1 - entry.helped_share:.2f} against, of {entry.magnitude:g}"
            # what it took back: a soft outcome (implicit_timeout), else a rating ("negative user_explicit")
            rating = entry.took_back is not None and entry.took_back not in OUTCOMES
            if entry.withdrawn:
                sign = "withdrawn"  # a neutral score: the standing rating taken back, nothing added
            said = [
                f" (took back the {entry.took_back} rating)" if rating and entry.withdrawn else "",
                f" (replaces the {entry.took_back} rating)" if rating and not entry.withdrawn else "",
                f" (replaces {entry.took_back})" if entry.took_back and not rating else "",
                f" ({entry.put_back} counts again)" if entry.put_back else "",
                f"\t{entry.lesson}: {entry.why}" if entry.lesson and entry.why else "",
            ]
            out.append(
                f"{entry.at.isoformat(timespec='seconds')}\t{entry.old_confidence:.3f} → {entry.new_confidence:.3f}"
                f"\t{sign}\t{entry.source}" + "".join(said)
            )
        if not out:
            return f"no confidence changes yet for {heuristic_id}"
        # the third column is the evidence a signal added (± its weight), not the change in confidence
        return "\n".join(["at\tconfidence\tevidence\tsource\twhat it taught", *out])

    emit(page, as_json, lines)  # JSON: the API's page, newest first


@app.command()
def observe(
    text: Annotated[str, typer.Argument(help="The event's text.")],
    event_id: Annotated[str, typer.Option("--event-id", help="The event's id.")],
    source: Annotated[str, typer.Option(help="The event's source.")] = "",
    reply_to: Annotated[
        str | None,
        typer.Option("--reply-to", help="The fire, decision (response id) or event this event answers."),
    ] = None,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """An event that may undo, thank or complain about the recent fires of its source it is about, or show they
    were ignored."""
    observed = with_engine(
        lambda engine: engine.observe(text, event_id=event_id, tenant=tenant, source=source, reply_to=reply_to)
    )

    def lines() -> str:
        if not observed.signals and observed.open_fires == 0:
            return "no open fires from this source"
        if not observed.signals:
            return (
                f"this event is about none of the source's {observed.open_fires} latest open fire(s): nothing learned "
                "(name one with --reply-to)"
            )
        out = []
        for outcome in observed.signals:
            moved = (
                f" ({outcome.old_confidence:.3f} → {outcome.new_confidence:.3f})"
                if outcome.old_confidence is not None and outcome.new_confidence is not None
                else ""
            )
            kind = "soft outcome (weighed by what it meant)" if outcome.soft else outcome.signal  # not "negative"
            out.append(f"{outcome.source} {kind} on {outcome.heuristic_id}: {outcome.effect}{moved}")
        return "\n".join(out)

    emit(observed, as_json, lines)


@learning_app.command("sweep")
def sweep(as_json: JsonOption = False) -> None:
    """Give fires older than the undo window their timeout signal (the service does this on its own)."""
    applied = with_engine(lambda engine: engine.learning.sweep())
    emit({"applied": applied}, as_json, lambda: f"{applied} timeout signals applied")


@learning_app.command("channel")
def channel(as_json: JsonOption = False, tenant: TenantOption = DEFAULT_TENANT) -> None:
    """What each implicit outcome says about a fire: P(outcome | helped), P(outcome | not), learned from rated fires."""
    report = with_engine(lambda engine: engine.learning.channel(tenant))

    def table() -> str:
        used = "weighs outcomes through it" if report.weighs_outcomes else "records it (use calibrated to weigh by it)"
        out = [
            f"strategy {report.strategy}: {used}",
            "outcome\trated helped\trated not\tP(·|helped)\tP(·|not)\tcounts for success at 0.5",
        ]
        out += [
            f"{row.outcome}\t{row.rated_helped}\t{row.rated_not_helped}\t{row.p_given_helped:.3f}"
            f"\t{row.p_given_not_helped:.3f}\t{row.helped_share_at_half:.3f}"
            for row in report.outcomes
        ]
        return "\n".join(out)

    emit(report, as_json, table)

"""``phronesis admission admit|search|decisions|export|undo|feedback|calibrate|evaluate-pairs`` (seed 003)."""

from __future__ import annotations

import json
import sys
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from phronesis.admission.models import AdmissionResult, RunIn
from phronesis.admission.pairs import read_pairs
from phronesis.cli.base import (
    JsonAlways,
    JsonOption,
    TenantOption,
    admission_app,
    emit,
    fail,
    parsed,
    with_engine,
)
from phronesis.exceptions import InvalidInputError
from phronesis.jsonlines import validated_file
from phronesis.tenants import DEFAULT_TENANT

if TYPE_CHECKING:
    from phronesis.engine import Engine

PairsPath = Annotated[
    Path, typer.Argument(help="MRPC format: label<TAB>id1<TAB>id2<TAB>sentence1<TAB>sentence2, header line.")
]
AgentOption = Annotated[str, typer.Option("--agent", help="Agent scope.")]
UserOption = Annotated[
    str, typer.Option("--user", help="User scope (empty: the agent's runs tied to no user; a scope of its own).")
]


def _describe(result: AdmissionResult) -> str:
    target = f" → {result.target_run_id}" if result.target_run_id else ""
    similarity = "-" if result.similarity is None else f"{result.similarity:.2f}"
    how = result.stage + (f"/{result.rule}" if result.rule else "")
    run = "not stored" if result.decision == "NOT" else f"run {result.run_id}"  # a NOT's id names nothing
    return (
        f"{result.decision}{target}  {run}  similarity {similarity}  via {how}\n"
        f"why: {result.reason}\ndecision id: {result.decision_id} (for undo and feedback)"
    )


def _admit_file(path: Path, tenant: str) -> dict[str, Any]:
    try:
        runs = validated_file(path, RunIn)
    except InvalidInputError as exc:
        raise fail(str(exc)) from None
    if not runs:
        raise fail(f"{path}: no runs")
    console = Console(stderr=True)

    async def work(engine: Engine) -> dict[str, Any]:
        size = engine.settings.admission.max_batch
        counts: Counter[str] = Counter()
        batches: list[str] = []
        with Progress(
            TextColumn("admitting"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=True,
        ) as progress:
            task = progress.add_task("runs", total=len(runs))
            for start in range(0, len(runs), size):
                chunk = runs[start : start + size]
                try:
                    results = await engine.admission.admit_many(tenant, chunk)
                except InvalidInputError as exc:
                    # name the file line, not the position in the chunk
                    raise fail(f"{path} (runs from line {start + 1}): {exc}") from None
                counts.update(r.decision for r in results)
                batches += {r.batch_id for r in results if r.batch_id}
                progress.advance(task, len(chunk))
        return {
            "runs": len(runs),
            "decisions": {d: counts.get(d, 0) for d in ("ADD", "NOT", "REPLACE", "MERGE")},
            "batch_ids": batches,
            "see": "phronesis admission decisions --batch BATCH_ID: each run's decision, reason and id",
        }

    return with_engine(work)


@admission_app.command("admit")
def admit(
    task: Annotated[str | None, typer.Option(help="What the run was asked to do.")] = None,
    outcome: Annotated[str | None, typer.Option(help="success, failure or partial.")] = None,
    summary: Annotated[str | None, typer.Option(help="The run's summary (default: summarised from --step).")] = None,
    step: Annotated[list[str] | None, typer.Option("--step", help="A step of the run's trace (repeatable).")] = None,
    reference: Annotated[list[str] | None, typer.Option("--ref", help="A reference it used (repeatable).")] = None,
    artifact: Annotated[list[str] | None, typer.Option("--artifact", help="An artifact it made (repeatable).")] = None,
    run_id: Annotated[str | None, typer.Option("--id", help="The run's id (default: generated).")] = None,
    replaces: Annotated[str | None, typer.Option(help="Explicitly replace this run (same task and scope).")] = None,
    file: Annotated[
        Path | None, typer.Option("--file", help="JSONL of runs (RunIn per line): batch admission with progress.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole result as JSON.")] = False,
    agent: AgentOption = "default",
    user: UserOption = "",
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Admit a finished run (or a file of runs): ADD, NOT, REPLACE or MERGE, and why."""
    if file is not None:
        if task is not None or outcome is not None:
            raise fail("give either --file or --task/--outcome, not both")
        typer.echo(json.dumps(_admit_file(file, tenant), indent=2))
        return
    if task is None or outcome is None:
        raise fail("--task and --outcome are required (or --file)")

    run = parsed(
        RunIn,
        dict(
            id=run_id,
            agent_id=agent,
            user_id=user,
            task=task,
            outcome=outcome,
            summary=summary,
            steps=step or [],
            references=reference or [],
            artifacts=artifact or [],
            replaces=replaces,
        ),
    )
    result = with_engine(lambda engine: engine.admission.admit(tenant, run))
    typer.echo(result.model_dump_json(indent=2) if as_json else _describe(result))


@admission_app.command("delete")
def delete_run(
    run_id: Annotated[str, typer.Argument(help="The run to delete.")],
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Delete a run. Runs it had replaced are active again; its merge group chooses its canonical run again."""
    deleted = with_engine(lambda engine: engine.admission.delete_run(tenant, run_id))
    again = f"; active again: {', '.join(deleted.restored)}" if deleted.restored else ""
    group = f"; its group's canonical run: {deleted.canonical}" if deleted.canonical else ""
    emit(deleted, as_json, lambda: f"deleted {deleted.run_id}{again}{group}")


@admission_app.command("undo")
def undo(
    decision_id: Annotated[str, typer.Argument(help="The admission decision to take back (its decision_id).")],
    as_json: JsonAlways = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Take an admission decision back: memory exactly as it was before it (refused while later ones build on it)."""
    done = with_engine(lambda engine: engine.admission.undo(tenant, decision_id))
    typer.echo(json.dumps(done.model_dump(mode="json"), indent=2))


@admission_app.command("feedback")
def feedback(
    decision_id: Annotated[str, typer.Argument(help="The admission decision (its decision_id).")],
    correct: Annotated[bool, typer.Option("--correct/--wrong", help="Was the decision right?")],
    expected: Annotated[
        str | None,
        typer.Option("--expected", help="What it should have been (with --wrong): ADD, NOT, REPLACE, MERGE."),
    ] = None,
    note: Annotated[str | None, typer.Option(help="Why.")] = None,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Say whether an admission decision was right; the last rating wins.
    "phronesis admission calibrate --from-feedback" learns from it."""
    fields = {"correct": correct, "expected_decision": expected and expected.upper(), "note": note}
    from phronesis.admission.feedback import AdmissionFeedbackIn

    body = parsed(AdmissionFeedbackIn, fields)
    rated = with_engine(lambda engine: engine.admission.rate(tenant, decision_id, body))
    teaches = rated.teaches
    taught = (
        "teaches nothing about duplicates"
        if teaches is None
        else f"teaches: {'a duplicate' if teaches.duplicate else 'not a duplicate'} of {teaches.run_id}"
    )
    emit(rated, as_json, lambda: f"{rated.decision_id}: {rated.decision} is {rated.outcome}; {taught}")


@admission_app.command("purge")
def purge(
    older_than_days: Annotated[
        float | None,
        typer.Option(min=0.0, help="Default: PHRONESIS_ADMISSION__SUPERSEDED_RETENTION_DAYS (off: nothing purged)."),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Delete runs superseded longer ago than --older-than-days, with their references and artifacts."""
    older = None if older_than_days is None else timedelta(days=older_than_days)

    async def work(engine: Engine) -> int | None:
        if older is None and engine.settings.admission.superseded_retention_days is None:
            return None
        return await engine.admission.purge_superseded(older)

    purged = with_engine(work)
    off = (
        "retention is off (PHRONESIS_ADMISSION__SUPERSEDED_RETENTION_DAYS is not set): nothing purged; "
        "give --older-than-days to purge once"
    )
    emit({"purged": purged or 0}, as_json, lambda: off if purged is None else f"purged {purged} superseded run(s)")


@admission_app.command("search")
def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    k: Annotated[int, typer.Option("-k", min=1, max=100, help="How many runs.")] = 5,
    collapse: Annotated[bool, typer.Option(help="One run (the canonical) per merge group.")] = False,
    min_similarity: Annotated[
        float | None,
        typer.Option(
            min=-1.0,
            max=1.0,
            help="No hit below it (default: admission.search_min_similarity). A negative: --min-similarity=-1.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the hits as JSON.")] = False,
    agent: AgentOption = "default",
    user: UserOption = "",
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Active runs most similar to QUERY, best first (superseded runs never match)."""
    hits = with_engine(
        lambda engine: engine.admission.search(
            tenant, query, agent_id=agent, user_id=user, k=k, min_similarity=min_similarity, collapse=collapse
        )
    )
    if as_json:
        typer.echo(json.dumps([h.model_dump(mode="json") for h in hits], indent=2))
        return
    if not hits:
        typer.echo("no runs")
    for hit in hits:
        group = ""
        if hit.group is not None:
            role = "canonical" if hit.run.canonical else "member"
            group = f"  [{role} of group {hit.group.id}, {hit.group.size} runs]"
        typer.echo(f"{hit.similarity:.3f}  {hit.run.id}  {hit.run.outcome}  {hit.run.task[:60]}{group}")


@admission_app.command("decisions")
def decisions(
    run: Annotated[str | None, typer.Option("--run", help="Only this run's decisions.")] = None,
    batch: Annotated[
        str | None, typer.Option("--batch", help="Only this batch's (admit --file prints its ids).")
    ] = None,
    limit: Annotated[int, typer.Option(min=1, max=1000)] = 20,
    as_json: JsonAlways = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """The newest memory decisions as JSON lines."""
    found = with_engine(lambda engine: engine.admission.decisions(tenant, run_id=run, batch_id=batch, limit=limit))
    for decision in found.items:
        typer.echo(decision.model_dump_json())


@admission_app.command("export")
def export(
    fmt: Annotated[
        str, typer.Option("--format", help="cypher (Neo4j, the seed's store) or graphml (any graph tool).")
    ] = "cypher",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="File to write (default: stdout).")] = None,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Write runs, tasks, references, artifacts and memory decisions as a graph."""
    if fmt not in ("cypher", "graphml"):
        raise fail(f"--format must be cypher or graphml, not {fmt!r}")
    chosen: Literal["cypher", "graphml"] = "cypher" if fmt == "cypher" else "graphml"
    if output is None:
        counts = with_engine(lambda engine: engine.admission.export(tenant, sys.stdout, chosen))
    else:
        partial = output.with_name(output.name + ".partial")
        try:
            with partial.open("w", encoding="utf-8") as handle:
                counts = with_engine(lambda engine: engine.admission.export(tenant, handle, chosen))
            partial.replace(output)  # a failed export never leaves a half-written file under the real name
        except OSError as exc:
            raise fail(f"cannot write {output}: {exc.strerror or exc}") from None
        finally:
            partial.unlink(missing_ok=True)
    typer.echo(json.dumps({"format": chosen} | counts), err=True)


@admission_app.command("calibrate")
def calibrate(
    pairs: Annotated[
        Path | None,
        typer.Argument(
            help="Labelled pairs, MRPC format: label<TAB>id1<TAB>id2<TAB>sentence1<TAB>sentence2, header line "
            "(optional with --from-feedback)."
        ),
    ] = None,
    objective: Annotated[
        str, typer.Option(help="accuracy, f1, or precision (most recall at --min-precision).")
    ] = "accuracy",
    min_precision: Annotated[float, typer.Option(min=0.0, max=1.0)] = 0.9,
    from_feedback: Annotated[
        bool, typer.Option("--from-feedback", help="Also learn from the ratings of admission decisions.")
    ] = False,
    feedback_weight: Annotated[
        float, typer.Option(min=0.01, max=1000.0, help="How many file pairs one rated decision counts as.")
    ] = 1.0,
    save: Annotated[bool, typer.Option("--save/--no-save", help="Keep it as the tenant's threshold.")] = True,
    as_json: JsonAlways = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Fit the duplicate decision on labelled pairs and/or rated decisions: the cosine threshold,
    and the pair judge that admissions use in its place (from 100 pairs). Prints JSON with
    precision, recall, F1 and accuracy of both."""
    if objective not in ("accuracy", "f1", "precision"):
        raise fail(f"--objective must be accuracy, f1 or precision, not {objective!r}")
    if pairs is None and not from_feedback:
        raise fail("give a pairs file, --from-feedback, or both")
    chosen: Literal["accuracy", "f1", "precision"] = objective  # type: ignore[assignment]  # checked above
    try:
        labelled = [] if pairs is None else read_pairs(pairs)
    except InvalidInputError as exc:
        raise fail(str(exc)) from None
    result = with_engine(
        lambda engine: engine.admission.calibrate(
            tenant,
            labelled,
            objective=chosen,
            min_precision=min_precision,
            save=save,
            from_feedback=from_feedback,
            feedback_weight=feedback_weight,
        )
    )
    typer.echo(json.dumps(result, indent=2))


@admission_app.command("calibration")
def calibration(
    reset: Annotated[
        bool, typer.Option("--reset", help="Forget it: the settings' duplicate threshold decides again.")
    ] = False,
    as_json: JsonAlways = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Print the tenant's calibration (threshold, when, how it was fitted, its metrics), or reset it."""

    async def work(engine: Engine) -> dict[str, Any]:
        if reset:
            return {"reset": await engine.admission.clear_calibration(tenant)}
        stored = await engine.admission.calibration(tenant)
        if stored is None:
            return {"calibrated": False, "duplicate_threshold": engine.settings.admission.duplicate_threshold}
        judge = stored.pop("pair_judge", None)  # its weights and idf table: thousands of numbers
        return {"calibrated": True} | stored | {"pair_judge": judge is not None}

    typer.echo(json.dumps(with_engine(work), indent=2))


@admission_app.command("evaluate-pairs")
def evaluate_pairs(
    pairs: PairsPath,
    threshold: Annotated[
        float | None, typer.Option(min=-1.0, max=1.0, help="Default: the tenant's calibrated one, else settings.")
    ] = None,
    as_json: JsonAlways = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Print JSON: precision, recall, F1 and accuracy of "is this a duplicate" on labelled pairs,
    for the threshold and (under "pair_judge") the tenant's pair judge, if it has one."""
    try:
        labelled = read_pairs(pairs)
    except InvalidInputError as exc:
        raise fail(str(exc)) from None
    result = with_engine(lambda engine: engine.admission.evaluate_pairs(tenant, labelled, threshold=threshold))
    typer.echo(json.dumps(result, indent=2))

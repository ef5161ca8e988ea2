"""The dashboard's server time over a million decision records (issue 25).

Fills a fresh database (SQLite file, and PostgreSQL with ``--postgres URL``) with ``--records``
decision records of one tenant over the last 30 days — the six kinds with their paths and
outcomes, latencies, LLM calls and tokens — then asks each page ``--requests`` times through
the app in process (``httpx.ASGITransport``: the server's time, no network) and prints p50 / p99.
Goal: p99 ≤ 300 ms per page. Then what-if replays over the logged decisions: the routing
cascade threshold and the two band thresholds over the routing quarter (cascade decisions with
what their bands read, 10 % rated) and the executive
heuristic threshold over the executive share (heuristic-first decisions with three candidates
each, exploration recorded on a fifth of those no candidate cleared, 10 % rated), the
admission low similarity threshold over the admission share (a best similarity and the judge
each, 10 % rated) and one trust level's proactive score threshold over its cycles (one to three
scored candidates each, the sends joined for their feedback): goal ≤ 10 s for 100,000; and
``tune`` for each (every value of the grid replayed on one read).

    python benchmarks/bench_dashboard.py [--records 1000000] [--postgres postgresql+asyncpg://…/test]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import insert, text

from bench_heuristics import percentile
from bench_proactive import admin, own_database
from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.engine import Engine
from phronesis.executive.types import HeuristicCandidate
from phronesis.executive.urgency_tiered import Cutoffs
from phronesis.executive.urgency_tiered import select as select_tiers
from phronesis.proactive.scoring import Weights, weigh
from phronesis.replay import ReplayIn, TuneIn, run_replay, tune
from phronesis.routing.bands import Bands, Evidence, recorded, settle, wants_more
from phronesis.routing.decisions import Decision
from phronesis.server import create_app
from phronesis.settings import Settings
from phronesis.storage.tables import decision_records, proactive_sends, proactive_users

TENANT = "default"
USERS = 2000
LEVELS = ("new", "building", "established", "deep")
KINDS: dict[str, tuple[float, list[str], list[str]]] = {
    # kind: (share, paths, actions)
    "executive": (0.30, ["heuristic", "llm", "fallback", "rejected"], []),
    "routing": (0.25, ["local", "llm", "rule"], ["RETRIEVE", "REASON_ONLY", "USE_TOOL", "CLARIFY", "ESCALATE"]),
    "admission": (0.15, ["prefilter", "judge"], ["ADD", "NOT", "REPLACE", "MERGE"]),
    "proactive": (0.25, ["cycle", "prefilter"], ["sent", "deferred", "silent"]),
    "learning": (0.05, ["feedback"], []),
}
REASONS = ["quiet_hours", "cap_reached", "muted", "no_signals", "below_threshold", "opted_out"]
PAGES = [
    "/ui?days=14",
    "/ui?days=30",
    "/ui/decisions",
    "/ui/decisions?kind=routing&action=CLARIFY",
    "/ui/decisions?kind=proactive&path=cycle&since={week_ago}",
    "/ui/decisions?subject=subject-77",
    "/ui/decisions?q=do+thing+4242",  # the last day, by default
    "/ui/decisions?q=do+thing+4242&since={week_ago}",
    "/ui/decisions/{some_id}",
    "/ui/admission",
    "/ui/calibration",
]


def _rows(
    count: int, start: int, now: datetime, rng: random.Random
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Decision records, and the proactive sends their sent cycles made."""
    kinds = list(KINDS)
    weights = [KINDS[k][0] for k in kinds]
    rows, sends = [], []
    for i in range(start, start + count):
        kind = rng.choices(kinds, weights)[0]
        _, paths, actions = KINDS[kind]
        path = rng.choice(paths)
        llm = path == "llm"
        action = rng.choice(actions) if actions else f"do thing {rng.randint(1, 5000)}"
        strategy, attributes, outcome = None, {}, None
        inputs: dict[str, Any] = {"text": f"input {i}"}
        if kind == "executive":
            strategy, path, action, attributes, inputs, outcome = _executive(i, rng)
            llm = path == "llm"
        if kind == "routing":  # cascade decisions with the local router's prediction, 10 % rated
            strategy = "cascade"
            probability = rng.random()
            path = "local" if probability >= 0.75 else "llm"
            llm = path == "llm"
            action, bands = _banded(rng, actions)
            attributes = {
                "local": {"decision": rng.choice(actions), "probability": probability, "abstained": None},
                "bands": bands,
            }
            if rng.random() < 0.1:
                outcome = rng.choice(["correct", "incorrect"])
                if outcome == "incorrect":
                    attributes["route_feedback"] = {"correct": False, "expected_decision": rng.choice(actions)}
        if kind == "admission":
            path, action, attributes, outcome, llm = _admission(rng)
        created = now - timedelta(seconds=rng.uniform(0, 30 * 86400))
        subject = f"subject-{rng.randint(1, 20000)}"
        if kind == "proactive" and path == "cycle":
            user = f"u{rng.randrange(USERS)}"
            subject, action, inputs, attributes, send = _cycle(i, user, created, rng)
            if send is not None:
                sends.append(send)
        rows.append(
            {
                "id": f"d{i:08}",
                "tenant": TENANT,
                "kind": kind,
                "subject_id": subject,
                "strategy": strategy,
                "path": path,
                "action": action,
                "confidence": rng.random(),
                "inputs": inputs,
                "prompt": None,
                "raw_llm_output": None,
                "model": "gpt" if llm else None,
                "latency_ms": rng.lognormvariate(2.5, 0.6) * (40 if llm else 1),
                "prompt_tokens": rng.randint(200, 900) if llm else None,
                "completion_tokens": rng.randint(20, 200) if llm else None,
                "llm_calls": 1 if llm else 0,
                "reason": rng.choice(REASONS) if kind == "proactive" and action != "sent" else None,
                "outcome": outcome,
                "outcome_at": None,
                "attributes": attributes,
                "created_at": created,
            }
        )
    return rows, sends


def _admission(rng: random.Random) -> tuple[str, str, dict[str, Any], str | None, bool]:
    """An admission as the executor records one: the best similarity, the same-task count, the
    judge (the LLM) a run past the pre-filter met; 10 % rated."""
    best = rng.uniform(0.3, 1.0)
    same_task = int(rng.random() < 0.1)
    judged = same_task or best >= 0.7
    action = rng.choice(["ADD", "NOT", "MERGE"]) if judged else "ADD"
    attributes: dict[str, Any] = {
        "similarity": best, "rule": "llm" if judged else "below_low_similarity", "duplicate_threshold": 0.95,
        "low_similarity": 0.7, "judge_configured": "llm", "pair_judge": False, "same_task_candidates": same_task,
    }  # fmt: skip
    if judged:  # what a replay of the duplicate threshold reads: the LLM judge's hint
        same = rng.random() < 0.5
        attributes |= {"likely_duplicate": same and best >= 0.95, "likely_duplicate_from": best if same else None}
    outcome = None
    if rng.random() < 0.1:
        outcome = rng.choice(["correct", "incorrect"])
        if outcome == "incorrect":
            attributes["admission_feedback"] = {"correct": False, "expected_decision": rng.choice(["ADD", "NOT"])}
    return ("judge" if judged else "prefilter"), action, attributes, outcome, bool(judged)


def _cycle(
    i: int, user: str, at: datetime, rng: random.Random
) -> tuple[str, str, dict[str, Any], dict[str, Any], dict[str, Any] | None]:
    """A proactive cycle past the pre-filter as ``cycle`` records one: one to three scored
    candidates (exploration at 0.1 in a band of 1 below the level's threshold), the send, and
    that send's feedback."""
    level = rng.choice(LEVELS)
    threshold = {"new": 7.0, "building": 6.0, "established": 5.5, "deep": 5.0}[level]
    candidates = []
    for n in range(rng.randint(1, 3)):
        parts = [round(rng.uniform(3.0, 9.5), 1) for _ in range(3)]
        score = weigh(*parts, Weights())
        verdict, probability = ("approved", 1.0) if score >= threshold else ("deferred", 1.0)
        if threshold - 1.0 <= score < threshold:
            verdict, probability = ("explored", 0.1) if rng.random() < 0.1 else ("deferred", 0.9)
        candidates.append({"message": f"message {i}.{n}", "category": rng.choice(["deadline_warning", "habit"]),
                           "score": score, "verdict": verdict, "probability": probability,
                           "relevance": parts[0], "timing": parts[1], "urgency": parts[2]})  # fmt: skip
    candidates.sort(key=lambda c: (c["verdict"] not in ("approved", "explored"), -c["score"]))
    chosen = candidates[0] if candidates[0]["verdict"] in ("approved", "explored") else None
    send = None
    if chosen is not None:
        send = {
            "tenant": TENANT, "id": f"s{i:08}", "user_id": user, "cycle_key": f"k{i:08}", "message": chosen["message"],
            "category": chosen["category"], "trigger_signals": [], "action_type": "text", "channel": "console",
            "score": chosen["score"], "probability": chosen["probability"], "delivery_status": "sent", "sent_at": at,
            "outcome": rng.choice(["engaged", "ignored", "ignored", "pending"]),
        }  # fmt: skip
    attributes = {"threshold": threshold, "candidates": candidates, "send_id": send and send["id"],
                  "probability": 1.0 if chosen and chosen["verdict"] == "approved" else 0.1}  # fmt: skip
    inputs = {"trust": {"level": level, "score_threshold": threshold, "weights": Weights().info()},
              "sends_today": rng.randint(0, 2)}  # fmt: skip
    return user, "sent" if chosen else "silent", inputs, attributes, send


def _executive(i: int, rng: random.Random) -> tuple[str, str, str, dict[str, Any], dict[str, Any], str | None]:
    """An executive decision as ``executive.records`` writes one: three candidates; heuristic-first
    fires the first to reach 0.7, else the LLM (a fifth of those explored with recorded
    propensities); a fifth of the decisions are urgency-tiered (``urgency_tiered.select``, the soon
    tier drawn by its chances), with the cut-offs they used."""
    candidates = [
        {
            "heuristic_id": f"h{rng.randint(1, 5000)}",
            "condition_text": f"when thing {i}",
            "suggested_action": f"do thing {rng.randint(1, 5000)}",
            "confidence": round(rng.uniform(0.3, 0.95), 3),
            "similarity": round(rng.uniform(0.5, 1.0), 3),
            "alpha": 4.0,
            "beta": 2.0,
        }  # fmt: skip
        for _ in range(3)
    ]
    urgency = round(rng.random(), 3)
    inputs = {"event_text": f"event {i}", "event_source": "bench", "immediate": True, "urgency": urgency,
              "personality_biases": {}, "bias_source": "default", "base_threshold": 0.7,
              "candidates": candidates}  # fmt: skip
    outcome = rng.choice(["positive", "negative"]) if rng.random() < 0.1 else None
    if rng.random() < 0.2:
        cutoffs = Cutoffs()
        picked = select_tiers(
            [HeuristicCandidate.model_construct(**c) for c in candidates],
            base=0.7, bias=0.0, urgency=urgency, cutoffs=cutoffs, llm_available=True,
        )  # fmt: skip
        chosen = rng.choices(list(picked.chances), list(picked.chances.values()))[0] if picked.chances else None
        attributes = {"threshold": picked.threshold, "strategy": "urgency_tiered", "tier": picked.tier,
                      "cutoffs": cutoffs.info(), "chances": picked.chances, "llm_available": True,
                      "matched_heuristic_id": chosen}  # fmt: skip
        action = next(str(c["suggested_action"]) for c in candidates if c["heuristic_id"] == chosen) if chosen else ""
        return (
            "urgency_tiered",
            "heuristic" if chosen else "llm",
            action or f"llm answer {i}",
            attributes,
            inputs,
            outcome,
        )
    fired = next((c for c in candidates if c["confidence"] >= 0.7), None)
    attributes: dict[str, Any] = {"threshold": 0.7, "strategy": "heuristic_first", "llm_available": True}
    if fired is None and rng.random() < 0.2:
        chances = {c["heuristic_id"]: 0.1 / 3 for c in candidates}
        attributes["exploration"] = {"policy": "thompson", "rate": 0.1, "explored": False, "probability": 0.9,
                                     "chances": chances, "stay": 0.9}  # fmt: skip
    attributes["matched_heuristic_id"] = fired["heuristic_id"] if fired else None
    path = "heuristic" if fired else "llm"
    action = str(fired["suggested_action"]) if fired else f"llm answer {i}"
    return "heuristic_first", path, action, attributes, inputs, outcome


async def _fill(engine: Engine, url: str, records: int, now: datetime) -> float:
    rng = random.Random(7)
    started = time.perf_counter()
    chunk = 20_000
    async with engine.database.transaction() as conn:
        await conn.execute(
            insert(proactive_users),
            [
                {
                    "tenant": TENANT,
                    "id": f"u{n}",
                    "timezone": "UTC",
                    "wake_time": "07:00",
                    "sleep_time": "23:00",
                    "created_at": now - timedelta(days=60),
                    "channel": "console",
                    "ignored_signal_types": [],
                    "patterns": [],
                    "learned_ignored_types": [],
                    "updated_at": now,
                }  # fmt: skip
                for n in range(USERS)
            ],
        )
    for start in range(0, records, chunk):
        rows, sends = _rows(min(chunk, records - start), start, now, rng)
        async with engine.database.transaction() as conn:
            await conn.execute(insert(decision_records), rows)
            if sends:
                await conn.execute(insert(proactive_sends), sends)
    if engine.database.dialect == "postgresql":
        await admin(url, "VACUUM ANALYZE decision_records")  # autovacuum is off on this machine
    else:
        async with engine.database.transaction() as conn:
            await conn.execute(text("ANALYZE"))
    return time.perf_counter() - started


def _banded(rng: random.Random, actions: list[str]) -> tuple[str, dict[str, Any]]:
    """A routed turn as the service records its bands (``routing.bands``): the checked decision,
    the evidence before and (where the default bands search again) after the wider search."""
    decision = Decision(rng.choice(actions))
    if decision is Decision.ESCALATE:
        return decision.value, recorded(decision, Bands(0.75, 0.5))
    confidence = rng.uniform(0.2, 1.0)
    retrieved = decision is Decision.RETRIEVE
    first = Evidence(confidence, min(1.0, confidence + rng.uniform(-0.1, 0.1)), retrieved, rng.random() < 0.05)
    bands, evidence, more = Bands(0.75, 0.5), first, None
    if wants_more(decision, first, bands):
        evidence = more = Evidence(min(1.0, confidence + rng.uniform(0.0, 0.2)), first.composite, True, False)
    clarifications = rng.randint(0, 2)
    settled = settle(
        decision, evidence, bands, retrieved_more=more is not None, clarifications=clarifications, max_clarifications=2
    )
    kept = recorded(
        decision,
        bands,
        first,
        more_tried=more is not None,
        more=more,
        clarifications=clarifications,
        max_clarifications=2,
    )
    return settled.action.value, kept


async def bench(
    url: str, label: str, records: int, requests: int, *, pages: bool = True, only: list[str] | None = None
) -> list[str]:
    only = only or []
    settings = Settings(
        database={"url": url},
        embeddings={"spec": "hashing:384"},
        api={"dev_mode": True, "warm_up": False},
        proactive={"scheduler": False},
    )
    engine = Engine(settings, embedder=HashingEmbedder(384), llm=None)
    await engine.start()
    now = datetime.now(UTC)
    fill = await _fill(engine, url, records, now)
    await engine.close()
    if not pages:
        return await _replays(settings, label, records, fill, only)
    engine = Engine(settings, embedder=HashingEmbedder(384), llm=None)
    app = create_app(engine, close_engine=True)
    lines = []
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
    async with app.router.lifespan_context(app), httpx.AsyncClient(transport=transport, base_url="http://b") as client:
        started = time.perf_counter()
        await client.get("/ui?days=30")  # the first view rolls up every closed hour (audit.rollups)
        lines.append(f"| {label} | {records:,} | /ui?days=30, first view (rolls up 30 days) | "
                     f"{(time.perf_counter() - started) * 1000:.0f} | |")  # fmt: skip
        for page in PAGES:
            week_ago = (now - timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")
            path = page.format(week_ago=week_ago, some_id=f"d{records // 2:08}")
            times = []
            for n in range(requests + 2):
                started = time.perf_counter()
                response = await client.get(path)
                elapsed = (time.perf_counter() - started) * 1000
                if response.status_code != 200:
                    raise SystemExit(f"{path}: {response.status_code} {response.text[:200]}")
                if n >= 2:  # the first two warm the caches
                    times.append(elapsed)
            lines.append(
                f"| {label} | {records:,} | {path.split('?')[0]}{'?' + path.split('?')[1] if '?' in path else ''} "
                f"| {percentile(times, 50):.1f} | {percentile(times, 99):.1f} |"
            )
    return lines + await _replays(settings, label, records, fill, only)


async def _replays(settings: Settings, label: str, records: int, fill: float, only: list[str]) -> list[str]:
    lines = []
    engine = Engine(settings, embedder=HashingEmbedder(384), llm=None)
    await engine.start()
    try:
        for point, parameter, value in (
            ("routing", "cascade_threshold", 0.6),
            ("routing", "high_threshold", 0.8),
            ("routing", "low_threshold", 0.6),
            ("executive", "heuristic_threshold", 0.6),
            ("executive", "personality_bias", -0.1),
            ("executive", "urgency.soon_min", 0.5),
            ("executive", "strategy", "urgency_tiered"),
            ("admission", "low_similarity", 0.8),
            ("admission", "duplicate_threshold", 0.9),
            ("proactive", "score_threshold.new", 6.0),
            ("proactive", "weight.urgency", 0.5),
            ("proactive", "daily_cap.new", 1),
        ):
            if only and f"{point}.{parameter}" not in only:
                continue
            asked = {"decision_point": point, "parameter": parameter, "days": 31}
            body = ReplayIn.model_validate(asked | {"value": value})
            started = time.perf_counter()
            report = await run_replay(engine, TENANT, body)
            replay_s = time.perf_counter() - started
            lines.append(
                f"| {label} | {records:,} | replay {point} {report.parameter} {report.current} → {value} over "
                f"{report.decisions:,} decisions ({report.changed:,} change, "
                f"{report.replayed_success.covered:,} covered) | {replay_s * 1000:.0f} | |"
            )
            started = time.perf_counter()
            tuned = await tune(engine, TENANT, TuneIn.model_validate(asked))
            tune_s = time.perf_counter() - started
            lines.append(
                f"| {label} | {records:,} | tune {point} {parameter}: {len(tuned.rows)} values over "
                f"{tuned.decisions:,} decisions (proposed {tuned.proposed}) | {tune_s * 1000:.0f} | |"
            )
    finally:
        await engine.close()
    lines.append(f"| {label} | {records:,} | (fill: {fill:.0f} s) | | |")
    return lines


async def main_async(args: argparse.Namespace) -> None:
    lines = ["| database | records | page | p50 ms | p99 ms |", "|---|---:|---|---:|---:|"]
    with tempfile.TemporaryDirectory(prefix="bench-dashboard-") as scratch:
        sqlite = f"sqlite+aiosqlite:///{Path(scratch) / 'dash.db'}"
        lines += await bench(
            sqlite, "SQLite", args.records, args.requests, pages=not args.replays_only, only=args.replay
        )
    if args.postgres:
        async with own_database(args.postgres) as url:
            lines += await bench(
                url, "PostgreSQL", args.records, args.requests, pages=not args.replays_only, only=args.replay
            )
    print("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--postgres", help="also on PostgreSQL (a fresh database on this server)")
    parser.add_argument("--replays-only", action="store_true", help="only the replays and tuning, not the pages")
    parser.add_argument(
        "--replay", action="append", default=[], help="only this replay (e.g. routing.high_threshold); repeatable"
    )
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()

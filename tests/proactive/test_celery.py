"""Two real Celery worker processes (Redis broker) run one tick: every user gets one message.

The tick is enqueued twice and every chunk is also sent again by hand (a broker redelivery,
a retried task), while two workers race for them: the send claim keeps it to exactly one
delivery per user and cycle. Deliveries go to a real webhook receiver on loopback.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import redis

from phronesis.proactive.models import SignalIn, UserIn
from phronesis.processes.celery_app import CYCLES_TASK, OUTBOX_TASK, TICK_TASK, create_celery, cycle_time
from phronesis.settings import Settings
from tests.conftest import POSTGRES_URL, admin, worker_number
from tests.loopback import free_port
from tests.proactive.calendar_feed import calendar_feed
from tests.proactive.receiver import receiver

BROKER = f"redis://127.0.0.1:6379/{15 - worker_number()}"
"""A Redis database of this pytest worker's own (xdist runs workers side by side, issue 45)."""
USERS = 12


def _redis_up() -> bool:
    try:
        return bool(redis.Redis.from_url(BROKER, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


pytestmark = [
    pytest.mark.skipif(not _redis_up(), reason="no Redis broker on 127.0.0.1:6379"),
    pytest.mark.celery,
    pytest.mark.process,
]


@contextlib.asynccontextmanager
async def _engine() -> AsyncIterator[Any]:
    """An engine on the test's settings (the environment its processes share)."""
    from phronesis.embeddings.hashing import HashingEmbedder
    from phronesis.engine import Engine

    engine = Engine(Settings(), embedder=HashingEmbedder(384), llm=None)
    await engine.start(load_index=False)
    try:
        yield engine
    finally:
        await engine.close()


def _awake_webhook_user(engine: Any, **more: Any) -> UserIn:
    """An established user on the webhook channel with no quiet hours."""
    return UserIn(
        interaction_count=500,
        created_at=engine.clock.now().replace(year=2020),
        channel="webhook",
        sleep_time="00:00",
        wake_time="00:00",
        **more,
    )


async def _prepare(env: dict[str, str], prefix: str = "u") -> list[tuple[str, list[str]]]:
    async with _engine() as engine:
        for n in range(USERS):
            await engine.proactive.put_user("t", f"{prefix}{n:02d}", _awake_webhook_user(engine))
            await engine.proactive.add_signals(
                "t",
                f"{prefix}{n:02d}",
                [SignalIn(type="deadline_approaching", urgency_hint=9, data={"title": f"essay {n}"})],
            )
        plan: list[tuple[str, list[str]]] = await engine.proactive.ticker.plan(engine.clock.now())
        return plan


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def shared_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The database every process of a test shares: a SQLite file, or a PostgreSQL database of
    the test's own (issue 24: the workers' claims and locks are tested where they run at scale)."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'shared.db'}"
        return
    if POSTGRES_URL is None:
        pytest.skip("PHRONESIS_TEST_DATABASE_URL is not set")
    name = f"phx_{uuid.uuid4().hex[:12]}"
    server = POSTGRES_URL.rsplit("/", 1)[0]
    asyncio.run(admin(f"{server}/postgres", f'CREATE DATABASE "{name}"'))
    try:
        yield f"{server}/{name}"
    finally:
        asyncio.run(admin(f"{server}/postgres", f'DROP DATABASE "{name}" WITH (FORCE)'))


def _environment(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    queue: str,
    hook_url: str,
    broker: str = BROKER,
    database: str | None = None,
    **extra: str,
) -> dict[str, str]:
    """The settings every process of a test shares (one database, one queue), also set here."""
    env = {
        "PHRONESIS_DATA_DIR": str(tmp_path),
        "PHRONESIS_DATABASE__URL": database or f"sqlite+aiosqlite:///{tmp_path / 'shared.db'}",
        "PHRONESIS_EMBEDDINGS__SPEC": "hashing:384",
        "PHRONESIS_PROACTIVE__BROKER_URL": broker,
        "PHRONESIS_PROACTIVE__QUEUE": queue,
        "PHRONESIS_PROACTIVE__WEBHOOK_URL": f"{hook_url}/hook",
    } | {f"PHRONESIS_PROACTIVE__{name.upper()}": value for name, value in extra.items()}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env


@contextmanager
def _processes(
    commands: Sequence[list[str]], env: dict[str, str], log: Path, queue: str, broker: str = BROKER
) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``phronesis`` processes for the block; stopped (and their queue dropped) however it ends."""
    with log.open("wb") as sink:
        processes = [
            subprocess.Popen(
                [sys.executable, "-m", "phronesis", *command, "--loglevel", "warning"],
                env=os.environ | env,
                stdout=subprocess.DEVNULL,
                stderr=sink,
            )
            for command in commands
        ]
    try:
        yield processes
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()  # a worker still reconnecting to a broker that was down: not waited for,
                process.wait(timeout=20)  # its Popen was collected running and failed the next test
        if broker.startswith("redis://"):
            with contextlib.suppress(redis.RedisError):
                redis.Redis.from_url(broker, socket_connect_timeout=1).delete(queue)


def _wait_for(received: Sequence[object], count: int, timeout_s: float = 90) -> None:
    deadline = time.monotonic() + timeout_s
    while len(received) < count and time.monotonic() < deadline:
        time.sleep(0.2)


def test_two_workers_deliver_exactly_once_per_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_database: str
) -> None:
    queue = f"phronesis-test-{uuid.uuid4().hex[:8]}"
    with receiver() as hook:
        env = _environment(
            tmp_path, monkeypatch, queue, hook.url, database=shared_database, delivery_backoff_sec="0", tick_chunk="3"
        )
        chunks = asyncio.run(_prepare(env))
        assert len(chunks) == USERS // 3
        log = tmp_path / "workers.log"
        worker = ["worker", "--concurrency", "1"]
        with _processes([worker, worker], env, log, queue):
            celery = create_celery(Settings())
            at = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())
            for _ in range(2):
                celery.send_task(TICK_TASK, kwargs={"at": at}, queue=queue)
            for tenant, ids in chunks:
                celery.send_task(CYCLES_TASK, args=[tenant, ids, at], queue=queue)
            _wait_for(hook.received, USERS)
            time.sleep(2)  # let any duplicate that is still in flight land
        per_user = Counter(json.loads(r.body)["user_id"] for r in hook.received)
        assert per_user == {f"u{n:02d}": 1 for n in range(USERS)}, log.read_text(errors="replace")[-2000:]


def test_a_chunk_that_waited_past_its_tick_runs_at_the_time_it_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 24: a chunk picked up an hour after its tick ran quiet hours, the cap and the
    cooldown against the tick's time and recorded ``sent_at`` an hour in the past."""
    queue = f"phronesis-stale-{uuid.uuid4().hex[:8]}"
    with receiver() as hook:
        env = _environment(tmp_path, monkeypatch, queue, hook.url, tick_chunk="100")
        [(tenant, ids)] = asyncio.run(_prepare(env))
        started = datetime.now(UTC)
        an_hour_ago = (started - timedelta(hours=1)).isoformat()
        with _processes([["worker", "--concurrency", "1"]], env, tmp_path / "worker.log", queue):
            create_celery(Settings()).send_task(CYCLES_TASK, args=[tenant, ids, an_hour_ago], queue=queue)
            _wait_for(hook.received, USERS)

        async def sent_at() -> list[datetime]:
            async with _engine() as engine:
                return [f.sent_at for f in (await engine.proactive.list_feedback("t", limit=1000)).items]

        times = asyncio.run(sent_at())
        assert len(times) == USERS and min(times) >= started - timedelta(seconds=5), times


def test_beat_schedules_ticks_that_a_worker_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``phronesis beat`` + ``phronesis worker``, nothing enqueued by hand: a message arrives."""
    queue = f"phronesis-beat-{uuid.uuid4().hex[:8]}"
    with receiver() as hook:
        env = _environment(tmp_path, monkeypatch, queue, hook.url, cycle_minutes="0.05")
        asyncio.run(_prepare(env))
        log = tmp_path / "processes.log"
        with _processes([["beat"], ["worker", "--concurrency", "1"]], env, log, queue):
            _wait_for(hook.received, USERS)
        assert len(hook.received) == USERS, log.read_text(errors="replace")[-2000:]


def test_beat_polls_calendars_that_a_worker_turns_into_messages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 24: only the embedded scheduler polled calendars, and the README switches it off at
    scale. ``phronesis beat`` schedules the polling too: a user with a calendar feed and no
    signal gets the event's reminder through a worker."""
    queue = f"phronesis-calendar-{uuid.uuid4().hex[:8]}"

    def soon() -> datetime:
        return datetime.now(UTC) + timedelta(minutes=30)

    with receiver() as hook, calendar_feed("standup-1", "Design review", soon) as feed:
        env = _environment(tmp_path, monkeypatch, queue, hook.url, cycle_minutes="0.05")
        env["PHRONESIS_OUTBOUND__ALLOW"] = "127.0.0.1"
        monkeypatch.setenv("PHRONESIS_OUTBOUND__ALLOW", "127.0.0.1")

        async def prepare() -> None:
            async with _engine() as engine:
                url = feed.url()
                await engine.proactive.put_user("t", "cal", _awake_webhook_user(engine, calendar_url=url))

        asyncio.run(prepare())
        log = tmp_path / "processes.log"
        with _processes([["beat"], ["worker", "--concurrency", "1"]], env, log, queue):
            _wait_for(hook.received, 1)
        messages = [json.loads(r.body) for r in hook.received]
        assert messages and messages[0]["user_id"] == "cal", log.read_text(errors="replace")[-2000:]
        assert "Design review" in json.dumps(messages[0])


@contextmanager
def _broker(
    command: list[str], port: int, env: dict[str, str], timeout_s: float, pid_file: Path | None = None
) -> Iterator[Callable[[], None]]:
    """A broker process of this test's own; yields what stops it. A start script may run the
    broker in a session of its own (``rabbitmq-server`` as root goes through ``su``): then
    ``pid_file``, where the broker writes its process id, says what to stop."""
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )

    def stop() -> None:
        if pid_file is not None and pid_file.exists():
            broker = int(pid_file.read_text().split()[0])
            with contextlib.suppress(ProcessLookupError):
                os.kill(broker, signal.SIGTERM)
            deadline = time.monotonic() + 60
            while Path(f"/proc/{broker}").exists() and time.monotonic() < deadline:
                time.sleep(0.2)
            pid_file.unlink(missing_ok=True)
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=60)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # anything of the group still running

    try:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, "the broker did not start"
                time.sleep(0.2)
        yield stop
    finally:
        stop()


def _private_redis(port: int, _: Path) -> contextlib.AbstractContextManager[Callable[[], None]]:
    """A Redis without persistence."""
    command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    return _broker(command, port, dict(os.environ), 10)


def _private_rabbitmq(port: int, data: Path) -> contextlib.AbstractContextManager[Callable[[], None]]:
    """A RabbitMQ node with its own name, port and data directory."""
    (data / "rabbitmq.conf").write_text(f"listeners.tcp.default = 127.0.0.1:{port}\n")
    (data / "plugins").write_text("[].")
    env = os.environ | {
        "RABBITMQ_CONFIG_FILE": str(data / "rabbitmq"),
        "RABBITMQ_NODENAME": f"phx{port}@localhost",
        "RABBITMQ_DIST_PORT": str(free_port()),
        "RABBITMQ_MNESIA_BASE": str(data / "mnesia"),
        "RABBITMQ_FEATURE_FLAGS_FILE": str(data / "feature_flags"),
        "RABBITMQ_LOG_BASE": str(data / "log"),
        "RABBITMQ_ENABLED_PLUGINS_FILE": str(data / "plugins"),
        "RABBITMQ_PID_FILE": str(data / "pid"),
    }
    return _broker(["rabbitmq-server"], port, env, 60, pid_file=data / "pid")


BROKERS = {
    "redis": (_private_redis, "redis://127.0.0.1:{port}/0"),
    "rabbitmq": (_private_rabbitmq, "amqp://guest:guest@127.0.0.1:{port}//"),
}


@pytest.mark.parametrize("kind", ["redis", "rabbitmq"])
def test_worker_and_beat_outlive_a_broker_outage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    """Issue 20: the broker stops under a running worker and beat, and comes back on the same
    port. Both processes stay up, and ticks resume: users whose signals arrived during the
    outage get their one message after it."""
    if shutil.which(f"{kind}-server") is None:
        pytest.skip(f"no {kind}-server binary")
    private, url = BROKERS[kind]
    port = free_port()
    broker = url.format(port=port)
    data = Path(tempfile.mkdtemp(prefix=f"phronesis-{kind}-"))  # outside pytest's tree: RabbitMQ runs as its user
    data.chmod(0o777)
    queue = f"phronesis-outage-{uuid.uuid4().hex[:8]}"
    try:
        with receiver() as hook:
            env = _environment(tmp_path, monkeypatch, queue, hook.url, broker=broker, cycle_minutes="0.05")
            asyncio.run(_prepare(env, "u"))
            log = tmp_path / "processes.log"
            commands = [["beat"], ["worker", "--concurrency", "1"]]
            with private(port, data) as stop_broker, _processes(commands, env, log, queue, broker) as processes:
                _wait_for(hook.received, USERS)
                assert len(hook.received) == USERS, log.read_text(errors="replace")[-2000:]
                stop_broker()
                asyncio.run(_prepare(env, "v"))  # signals that arrive while the broker is down
                time.sleep(8)  # several beat ticks and worker reconnects fail meanwhile
                assert [p.poll() for p in processes] == [None, None], log.read_text(errors="replace")[-2000:]
                with private(port, data):
                    _wait_for(hook.received, 2 * USERS)
                    time.sleep(1)
                    assert [p.poll() for p in processes] == [None, None]
        per_user = Counter(json.loads(r.body)["user_id"] for r in hook.received)
        expected = {f"{prefix}{n:02d}": 1 for prefix in "uv" for n in range(USERS)}
        assert per_user == expected, log.read_text(errors="replace")[-3000:]
    finally:
        shutil.rmtree(data, ignore_errors=True)


def test_a_chunk_runs_at_its_ticks_time_unless_it_waited_past_the_next() -> None:
    tick = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
    interval = timedelta(minutes=5)
    assert cycle_time(tick, tick + timedelta(minutes=4), interval) == tick  # a retry in time: the same cycle
    late = tick + timedelta(minutes=40)
    assert cycle_time(tick, late, interval) == late


def _children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                out.append(int(stat.parent.name))
    return out


def test_a_worker_killed_between_commit_and_delivery_still_delivers_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_database: str
) -> None:
    """Issue 24: the worker process running a chunk is killed with SIGKILL after its cycle
    committed the send, while the channel has the message but has not answered. Celery hands the
    chunk to a new process, which finds the claim and stops; before the outbox the send stayed
    ``sending`` for ever (never delivered, counted toward the cap). Now its lease runs out and the
    outbox task delivers it again, with the same idempotency key."""
    queue = f"phronesis-kill-{uuid.uuid4().hex[:8]}"
    release = threading.Event()
    with receiver(hold=release) as hook:
        env = _environment(
            tmp_path,
            monkeypatch,
            queue,
            hook.url,
            database=shared_database,
            delivery_attempts="1",
            # the worker is killed while the receiver holds its delivery, well inside the timeout;
            # the lease just covers it (it was 30 s and 31 s: 43 s a run, issue 45)
            delivery_timeout_sec="8",
            outbox_lease_sec="9",
            outbox_retry_sec="0",
        )

        async def prepare() -> list[tuple[str, list[str]]]:
            async with _engine() as engine:
                await engine.proactive.put_user("t", "kim", _awake_webhook_user(engine))
                await engine.proactive.add_signals(
                    "t", "kim", [SignalIn(type="deadline_approaching", urgency_hint=9, data={"title": "Thesis"})]
                )
                plan: list[tuple[str, list[str]]] = await engine.proactive.ticker.plan(engine.clock.now())
                return plan

        [(tenant, ids)] = asyncio.run(prepare())
        log = tmp_path / "worker.log"
        try:
            with _processes([["worker", "--concurrency", "1"]], env, log, queue) as [worker]:
                celery = create_celery(Settings())
                at = datetime.now(UTC).isoformat()
                celery.send_task(CYCLES_TASK, args=[tenant, ids, at], queue=queue)
                assert hook.holding.wait(90), log.read_text(errors="replace")[-2000:]
                [child] = _children(worker.pid)
                os.kill(child, signal.SIGKILL)
                deadline = time.monotonic() + 120
                while len(hook.received) < 2 and time.monotonic() < deadline:
                    celery.send_task(OUTBOX_TASK, queue=queue)
                    time.sleep(3)
                time.sleep(2)  # anything else in flight lands
        finally:
            release.set()
    keys = [r.headers.get("idempotency-key") for r in hook.received]
    assert len(keys) == 2 and keys[0] == keys[1], (keys, log.read_text(errors="replace")[-3000:])

    async def sends() -> list[Any]:
        async with _engine() as engine:
            return (await engine.proactive.list_feedback("t")).items

    [send] = asyncio.run(sends())
    assert (send.id, send.delivery_status) == (keys[0], "sent")


def test_two_workers_keep_the_cooldown_across_neighbouring_slots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_database: str
) -> None:
    """Issue 24: chunks of two neighbouring slots (beat's at 12:09:59, another at 12:10:01) run
    at once on two workers for the same users with non-urgent signals: the cooldown, re-checked
    under each user's lock at commit, lets one message per user through."""
    queue = f"phronesis-slots-{uuid.uuid4().hex[:8]}"
    with receiver() as hook:
        env = _environment(tmp_path, monkeypatch, queue, hook.url, database=shared_database, tick_chunk="100")

        async def prepare() -> list[tuple[str, list[str]]]:
            async with _engine() as engine:
                for n in range(USERS):
                    user = f"s{n:02d}"
                    await engine.proactive.put_user("t", user, _awake_webhook_user(engine))
                    signals = [
                        SignalIn(type="deadline_approaching", urgency_hint=6, data={"title": f"{kind} {n}"})
                        for kind in ("Essay", "Reading")
                    ]
                    await engine.proactive.add_signals("t", user, signals)
                plan: list[tuple[str, list[str]]] = await engine.proactive.ticker.plan(engine.clock.now())
                return plan

        [(tenant, ids)] = asyncio.run(prepare())
        now = datetime.now(UTC)
        boundary = now.replace(second=0, microsecond=0) - timedelta(minutes=now.minute % 5)
        log = tmp_path / "workers.log"
        worker = ["worker", "--concurrency", "1"]
        with _processes([worker, worker], env, log, queue):
            celery = create_celery(Settings())
            for at in (boundary - timedelta(seconds=1), boundary + timedelta(seconds=1)):
                celery.send_task(CYCLES_TASK, args=[tenant, ids, at.isoformat()], queue=queue)
            _wait_for(hook.received, USERS)
            time.sleep(3)
        per_user = Counter(json.loads(r.body)["user_id"] for r in hook.received)
        assert per_user == {f"s{n:02d}": 1 for n in range(USERS)}, log.read_text(errors="replace")[-2000:]

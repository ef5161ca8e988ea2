"""The ``phronesis`` command line's base (Typer): the root app and its groups, the helpers every
command uses, and the server's own commands (serve, db, config). Errors are one line on stderr and
exit code 2. Each group's commands are in its own module, which registers them on the groups
defined here; ``phronesis.cli`` imports them all."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from pydantic import BaseModel, ValidationError

from phronesis.exceptions import (
    ConfigurationError,
    ConflictError,
    InvalidInputError,
    PhronesisError,
    validation_message,
)

if TYPE_CHECKING:
    from phronesis.engine import Engine
    from phronesis.settings import Settings

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

app = typer.Typer(
    name="phronesis",
    help="A decision engine for LLM agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
db_app = typer.Typer(help="Database schema.", no_args_is_help=True)
heuristics_app = typer.Typer(help="Heuristic memory.", no_args_is_help=True)
config_app = typer.Typer(help="Configuration.", no_args_is_help=True)
executive_app = typer.Typer(
    help="The executive (events to actions): the A/B report and re-evaluation.", no_args_is_help=True
)
learning_app = typer.Typer(
    help="Learning from what followed a decision: the timeout sweep and the learned channel.", no_args_is_help=True
)
app.add_typer(db_app, name="db")
app.add_typer(heuristics_app, name="heuristics")
app.add_typer(config_app, name="config")
app.add_typer(executive_app, name="executive")
app.add_typer(learning_app, name="learning")
routing_app = typer.Typer(help="Routing user turns: fit and evaluate the local router.", no_args_is_help=True)
app.add_typer(routing_app, name="routing")
admission_app = typer.Typer(
    help="Admission of finished runs to memory: admit, search, export the graph, calibrate the duplicate threshold.",
    no_args_is_help=True,
)
app.add_typer(admission_app, name="admission")
proactive_app = typer.Typer(
    help="Proactive messages: run cycles, manage users and signals, read feedback.",
    no_args_is_help=True,
)
app.add_typer(proactive_app, name="proactive")
replay_app = typer.Typer(
    help="What-if replay: another setting on the logged decisions (what changes, LLM calls, estimated success).",
    no_args_is_help=True,
)
app.add_typer(replay_app, name="replay")
settings_app = typer.Typer(
    help="A tenant's tuned settings: list them, apply a value, put the configured one back.",
    no_args_is_help=True,
)
app.add_typer(settings_app, name="settings")
decisions_app = typer.Typer(
    help="Decision records, each explained in words: list them, show one.",
    no_args_is_help=True,
)
app.add_typer(decisions_app, name="decisions")

log = logging.getLogger("phronesis.cli")

TenantOption = Annotated[str, typer.Option("--tenant", help="Tenant to act for.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
JsonAlways = Annotated[
    bool, typer.Option("--json", help="Taken for scripts that pass it everywhere: the output is JSON.")
]
"""``--json`` on a command whose output is JSON already (a script passing it everywhere must not break)."""


def emit(result: object, as_json: bool, text: Callable[[], str]) -> None:
    """A command's result: as JSON (``--json``: the API's own shape, for scripts) or as ``text``
    (for a person); either way on standard output alone."""
    if as_json:
        from pydantic_core import to_jsonable_python

        typer.echo(json.dumps(to_jsonable_python(result), indent=2, ensure_ascii=False))
    else:
        shown = text()
        if shown:
            typer.echo(shown)


def fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def invalid(exc: ValidationError, *, option: str | None = None, flags: Mapping[str, str] | None = None) -> typer.Exit:
    """A validation error as the CLI's one line: the option (or field) and what is wrong with it.
    ``flags`` maps the model's field names to the command's options: the line names ``--interactions``,
    not ``interaction_count``, and "give exactly one of --until and --minutes" (not the API's field
    names, nor "(input)", in a CLI error)."""
    error = exc.errors()[0]
    return refused([str(part) for part in error["loc"]], validation_message(error), option=option, flags=flags)


def refused(
    loc: Sequence[str], message: str, *, option: str | None = None, flags: Mapping[str, str] | None = None
) -> typer.Exit:
    """Input refused at ``loc`` (a model's field path; empty: the whole input) as the CLI's one line,
    naming the command's option: for a pydantic error here, or a server's problem+json (a command
    sent to ``PHRONESIS_URL``)."""
    for field, flag in (flags or {}).items():  # only the named ones: a message's words stay words
        message = re.sub(rf"(?<![\w-]){re.escape(field)}\b", flag, message)
    where = option or (_options(flags).get(loc[0], ".".join(loc)) if loc else "")
    return fail(f"{where}: {message}" if where else message)


def _options(flags: Mapping[str, str] | None) -> dict[str, str]:
    """The running command's options by the name of the field they fill (``user_score`` →
    ``--user-score``: Typer names a parameter as the model names its field), under ``flags``
    (where a field's option is named otherwise). An error then names what the user typed."""
    # Typer ships its own click (typer._click); its current context is the running command's
    from typer._click.globals import get_current_context

    named: dict[str, str] = {}
    context = get_current_context(silent=True)
    if context is not None:
        for parameter in context.command.params:
            if parameter.param_type_name == "option" and parameter.name:
                named[parameter.name] = max(parameter.opts, key=len)
    return named | dict(flags or {})


def parsed(model: type[M], data: Any, *, option: str | None = None, flags: Mapping[str, str] | None = None) -> M:
    """``data`` validated into ``model``, or the CLI's one line naming the option (``invalid``)."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise invalid(exc, option=option, flags=flags) from None


def run(coroutine_factory: Callable[[], Awaitable[T]], *, flags: Mapping[str, str] | None = None) -> T:
    """Run an async command; a phronesis error becomes one line and exit code 2 (input refused by
    the engine names the command's option, where ``flags`` maps its field to one)."""

    async def main() -> T:
        return await coroutine_factory()

    try:
        return asyncio.run(main())
    except (InvalidInputError, ConflictError) as exc:  # named as the command names it, as a server's refusal is
        raise refused(exc.field.split("."), exc.message, flags=flags) from None
    except PhronesisError as exc:
        raise fail(str(exc)) from None


def with_engine(
    work: Callable[[Engine], Awaitable[T]],
    *,
    load_index: bool = False,
    flags: Mapping[str, str] | None = None,
    settings: Callable[[], Settings] | None = None,
    reads_only: bool = False,
) -> T:
    """Open an engine (migrated; the vector index loaded only when asked), run ``work``, close it.

    Building the engine is cheap: the sentence model loads only when a command embeds. ``settings``:
    how a command's settings differ from the environment's (read inside ``run``, so a bad setting is
    the command's one line, as any other error). ``reads_only``: a command that only reads does not
    create the embedded database in the default place (no data directory named); it says where it looked.
    """
    from phronesis.engine import Engine

    if reads_only:
        _database_exists()

    if os.environ.get("PHRONESIS_URL"):  # else a local, empty database is taken for the server's
        typer.echo(
            f"note: this command works on the database directly ({_database_named()}: PHRONESIS_DATA_DIR / "
            "PHRONESIS_DATABASE__URL), not on the server PHRONESIS_URL names",
            err=True,
        )

    async def go() -> T:
        engine = Engine(settings() if settings is not None else None)
        try:
            await engine.start(load_index=load_index)
            return await work(engine)
        finally:
            await engine.close()

    return run(go, flags=flags)


def _database_named() -> str:
    """Which database a command opens, as a person names it: the SQLite file, or the server's
    address without its credentials (the trial's "not found" came from the default file, unnamed)."""
    from sqlalchemy.engine import make_url

    from phronesis.settings import load_settings

    try:
        url = make_url(load_settings().database_url())
    except PhronesisError:
        return "the configured one"  # a bad setting: the command's own line says what is wrong
    if url.get_backend_name() == "sqlite":
        return str(url.database)
    return url.render_as_string(hide_password=True).split("@")[-1]


def _database_exists() -> None:
    """The embedded SQLite file a reading command would open, or a one-line error naming where it
    looked (``heuristics list`` without PHRONESIS_DATA_DIR created an empty database elsewhere)."""
    from phronesis.settings import load_settings

    try:
        chosen = load_settings()
    except PhronesisError as exc:
        raise fail(str(exc)) from None
    if chosen.database.url or chosen.data_dir is not None:  # a place was named: an empty one is empty
        return
    path = chosen.resolved_data_dir() / "phronesis.db"
    if not path.exists():
        raise fail(
            f"no database at {path}, the default place: nothing is stored there (set PHRONESIS_DATA_DIR to "
            "the server's data directory, or run `phronesis db upgrade` to create one here)"
        )


def _print_version(value: bool) -> None:
    if value:
        from phronesis import __version__

        typer.echo(f"phronesis {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """A decision engine for LLM agents."""


def _configure_logging() -> None:
    """Log lines (``phronesis.*``, e.g. the console channel's messages) on standard error, as the
    settings ask. Invalid settings are left to the command, which reports them in one line."""
    from phronesis.logs import configure_logging
    from phronesis.settings import load_settings, warn_unknown_variables

    try:
        settings = load_settings(False)  # warned below, once logging is set up
    except PhronesisError:
        return
    configure_logging(settings.log_level, settings.log_format)
    warn_unknown_variables()  # now in the configured format


_COMMAND_LINE_ERROR: type[Exception] = next(
    c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException" and issubclass(c, Exception)
)
"""A mistake on the command line (a missing option, a value out of range): typer 0.29 carries its
own click and exports only subclasses of this base (``BadParameter``), so it is found from one."""


def main() -> None:
    """Console entry point: settings errors and command-line mistakes are reported like every
    other user error, one line on stderr (click's usage panel was five lines in a box)."""
    try:
        _configure_logging()
        code = app(standalone_mode=False, prog_name="phronesis")
    except PhronesisError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except _COMMAND_LINE_ERROR as exc:
        context = getattr(exc, "ctx", None)
        where = f" (see {context.command_path} --help)" if context is not None else ""
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        typer.echo(f"error: {message}{where}", err=True)
        sys.exit(int(getattr(exc, "exit_code", 2)))
    except typer.Abort:
        typer.echo("error: aborted", err=True)
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)


def _check_address(host: str, port: int) -> None:
    """Refuse an address that cannot be listened on with one line, before anything starts: uvicorn
    would report it only after the application had said it was ready."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        raise fail(f"cannot listen on {host}:{port}: {error.strerror}; set --host or PHRONESIS_API__HOST") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as error:
            raise fail(
                f"cannot listen on {host}:{port}: {error.strerror}; choose another port with --port "
                "or PHRONESIS_API__PORT"
            ) from None


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Bind address (default: settings, 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default: settings, 8000).")] = None,
    dev: Annotated[bool, typer.Option("--dev", help="Accept requests without an API key from 127.0.0.1.")] = False,
    workers: Annotated[
        int, typer.Option(min=1, max=64, help="Server processes sharing the port (each follows the database).")
    ] = 1,
) -> None:
    """Run the HTTP service."""
    import os

    import uvicorn

    from phronesis.api.auth import is_loopback_host
    from phronesis.engine import Engine
    from phronesis.logs import uvicorn_log_config
    from phronesis.server import create_app
    from phronesis.settings import load_settings
    from phronesis.storage.database import Database
    from phronesis.storage.migrate import upgrade
    from phronesis.storage.pgvector import pgvector_state
    from phronesis.storage.pgvector import require as require_pgvector

    settings = load_settings()
    api = settings.api.model_copy(
        update={k: v for k, v in {"host": host, "port": port}.items() if v is not None}
        | ({"dev_mode": True} if dev else {})
    )
    if api.dev_mode and not is_loopback_host(api.host):
        raise fail(f"dev mode serves without API keys and binds loopback only; refusing host {api.host}")
    if not api.dev_mode and not api.keys:
        typer.echo("warning: no API keys configured (PHRONESIS_API__KEYS); every /v1 request will get 401", err=True)
    settings = settings.model_copy(update={"api": api})
    _check_address(api.host, api.port)

    async def prepare() -> None:
        """Migrate once, here (N workers migrating one database at once would race), and refuse a
        backend the database cannot serve with one line, before any worker starts."""
        database = Database(settings.database_url())
        try:
            await upgrade(database)
            if settings.index.backend == "pgvector":
                require_pgvector(await pgvector_state(database))
        finally:
            await database.dispose()

    run(prepare)
    log_config = uvicorn_log_config(settings.log_level, settings.log_format)
    if workers == 1:
        app = create_app(Engine(settings), close_engine=True)  # closed at shutdown: its indexes are saved
        log.info("serving on http://%s:%d", api.host, api.port)
        uvicorn.run(app, host=api.host, port=api.port, log_level=settings.log_level, log_config=log_config)
        return
    # each worker is a fresh process that reads its settings from the environment
    os.environ.update(PHRONESIS_API__HOST=api.host, PHRONESIS_API__PORT=str(api.port))
    if api.dev_mode:
        os.environ["PHRONESIS_API__DEV_MODE"] = "true"
    log.info("serving on http://%s:%d with %d worker processes", api.host, api.port, workers)
    uvicorn.run(
        "phronesis.server:create_worker_app",
        factory=True,
        workers=workers,
        host=api.host,
        port=api.port,
        log_level=settings.log_level,
        log_config=log_config,
    )


@db_app.command("upgrade")
def db_upgrade(as_json: JsonOption = False) -> None:
    """Create or migrate the schema to the newest version."""
    from phronesis.settings import load_settings
    from phronesis.storage.database import Database
    from phronesis.storage.migrate import current_revision, upgrade
    from phronesis.storage.pgvector import pgvector_state

    settings = load_settings()

    async def go() -> tuple[str | None, str | None, str]:
        database = Database(settings.database_url())
        try:
            await upgrade(database)
            return await current_revision(database), await pgvector_state(database), database.dialect
        finally:
            await database.dispose()

    revision, missing, dialect = run(go)
    if missing is not None and settings.index.backend == "pgvector":  # refused before any "done" is said
        raise fail(f"PHRONESIS_INDEX__BACKEND=pgvector: {missing} (the schema is at revision {revision} without it)")
    emit({"revision": revision}, as_json, lambda: f"database at revision {revision}")
    if missing is not None and dialect == "postgresql":
        typer.echo(f"pgvector: not used ({missing}); vectors are searched in each process", err=True)


@config_app.command("show")
def config_show(as_json: JsonAlways = False) -> None:
    """Print the effective settings as JSON, secrets masked, once every part they name can be built
    (an LLM or embedding spec, the database URL, a strategy): a setting that would stop "phronesis serve"
    stops this too."""
    from phronesis.engine import Engine
    from phronesis.settings import load_settings

    settings = load_settings()

    async def check() -> None:
        engine = Engine(settings)  # cheap: nothing connects and no model loads here
        try:
            if settings.index.backend == "pgvector":  # serve and db upgrade refuse without it: so does this
                from phronesis.storage.pgvector import pgvector_state

                missing = await pgvector_state(engine.database)
                if missing is not None:
                    raise ConfigurationError(f"PHRONESIS_INDEX__BACKEND=pgvector: {missing}")
        finally:
            await engine.close()

    run(check)
    typer.echo(json.dumps(settings.masked(), indent=2, sort_keys=True))


def _read_input(path: str) -> bytes:
    """A file's bytes, or standard input's for ``-`` (refused when nothing is piped in: it would wait)."""
    if path == "-":
        if sys.stdin.isatty():
            raise fail("no input: give a file, or pipe JSON Lines in (command < file.jsonl)")
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise fail(f"cannot read {path}: {exc.strerror}") from None

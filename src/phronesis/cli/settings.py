"""``phronesis settings``: a tenant's applied settings, as ``/v1/settings``."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated, cast, get_args

import typer
from pydantic import BaseModel

from phronesis.cli.base import JsonOption, TenantOption, emit, fail, parsed, settings_app
from phronesis.cli.remote import URL, served
from phronesis.executive.factory import STRATEGY_NAMES
from phronesis.pages import Page, page_of
from phronesis.tenant_settings import CHOICES, AppliedSetting, ApplyIn, SettingName, SettingValue, out_of_range, shown
from phronesis.tenants import DEFAULT_TENANT

if TYPE_CHECKING:
    from phronesis.client import Client
    from phronesis.engine import Engine

NoteOption = Annotated[str | None, typer.Option("--note", help="Why: kept on the change's decision record.")]


def _line(s: AppliedSetting) -> str:
    applied = "configured" if s.applied is None else f"applied (configured {shown(s.configured)})"
    return f"{s.name} = {shown(s.value)}  {applied}"


@settings_app.command("list")
def list_settings(
    as_json: Annotated[bool, typer.Option("--json", help="Print them as JSON.")] = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """The tunable settings: the value the tenant's decisions use, and where it comes from."""

    async def work(engine: Engine) -> Page[AppliedSetting]:
        return page_of(await engine.tenant_settings.list(tenant), limit=100, offset=0)

    page = served(tenant, work, lambda client: client.settings.list_all(), answer=Page[AppliedSetting], embeds=False)
    emit(page, as_json, lambda: "\n".join(_line(s) for s in page.items))


def _named(name: str) -> SettingName:
    """``name`` as a tunable setting, or one line saying where they are listed (Typer's own choice
    check read "Invalid value for 'name': Value error, …" and then listed all 24)."""
    if name not in get_args(SettingName):
        raise fail(f"name: {name[:80]!r} is not a tunable setting (phronesis settings list shows them)")
    return cast(SettingName, name)


def _apply(tenant: str, name: SettingName, value: SettingValue | None, note: str | None, as_json: bool) -> None:
    change = parsed(ApplyIn, dict(value=value, note=note))

    async def work(engine: Engine) -> AppliedSetting:
        return await engine.tenant_settings.apply(tenant, name, change)

    def remote(client: Client) -> BaseModel:
        return client.settings.apply(name, change.model_dump(mode="json"))

    applied = served(tenant, work, remote, answer=AppliedSetting, embeds=False)
    unchanged = value is None and applied.applied is None and applied.updated_at is None
    done = "nothing to reset: it had no value of its own" if unchanged else f"decision {applied.decision_id}"
    emit(applied, as_json, lambda: f"{_line(applied)} ({done})")
    if applied.warning and not as_json:
        # on the database directly, the configuration checked is this process's, not a server's
        where = "" if os.environ.get(URL) else f" (by this process's configuration; set {URL} to ask the server)"
        typer.echo(f"warning: {applied.warning}{where}", err=True)


# a negative value ("-0.05") is a value, not an unknown option (not "No such option: -0")
@settings_app.command("set", context_settings={"ignore_unknown_options": True})
def set_setting(
    name: Annotated[
        str, typer.Argument(help="The setting, e.g. executive.heuristic_threshold (phronesis settings list).")
    ],
    value: Annotated[
        str,
        typer.Argument(
            help="Its value for this tenant: a number in the setting's range (an error names it), or for "
            "executive.strategy one of " + ", ".join(STRATEGY_NAMES) + ".",
        ),
    ],
    note: NoteOption = None,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Apply a value for the tenant: its decisions use it from the next one on, in every process."""
    setting = _named(name)
    if setting in CHOICES:
        _apply(tenant, setting, value, note, as_json)
        return
    try:
        number = float(value)
    except ValueError:
        raise fail(f"value: {out_of_range(setting, value)}") from None
    _apply(tenant, setting, int(number) if number.is_integer() else number, note, as_json)  # "2" said as 2


@settings_app.command("reset")
def reset_setting(
    name: Annotated[str, typer.Argument(help="The setting to put back to the configured value.")],
    note: NoteOption = None,
    as_json: JsonOption = False,
    tenant: TenantOption = DEFAULT_TENANT,
) -> None:
    """Put the server's configured value back for the tenant (recorded, as a change is)."""
    _apply(tenant, _named(name), None, note, as_json)

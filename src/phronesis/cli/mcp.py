"""``phronesis mcp``: the decision points as MCP tools over standard input and output."""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING

from phronesis.cli.base import TenantOption, app, fail, with_engine
from phronesis.tenants import DEFAULT_TENANT

if TYPE_CHECKING:
    from phronesis.engine import Engine


@app.command("mcp")
def mcp_command(tenant: TenantOption = DEFAULT_TENANT) -> None:
    """Serve the decision points as MCP tools on standard input and output, for an agent or an agent
    IDE that starts phronesis itself (a running server answers MCP over HTTP at /mcp). Every call
    acts for one tenant; logs go to standard error."""
    if importlib.util.find_spec("mcp") is None:
        raise fail("phronesis mcp needs the MCP SDK: pip install 'phronesis[mcp]'")
    from phronesis.mcp import build_server, fixed_tenant

    async def work(engine: Engine) -> None:
        await build_server(engine, fixed_tenant(tenant)).run_stdio_async()

    with_engine(work, load_index=True)

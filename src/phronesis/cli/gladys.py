"""``phronesis grpc``: phronesis as GLADyS's executive and heuristic memory, over GLADyS's gRPC wire."""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Annotated

import typer

from phronesis.cli.base import TenantOption, app, fail, with_engine
from phronesis.tenants import DEFAULT_TENANT

if TYPE_CHECKING:
    from phronesis.engine import Engine


@app.command("grpc")
def grpc_command(
    tenant: TenantOption = DEFAULT_TENANT,
    host: Annotated[str, typer.Option(help="Bind address (loopback unless you put a proxy in front).")] = "127.0.0.1",
    executive_port: Annotated[
        int, typer.Option(min=0, max=65535, help="gladys.v1.ExecutiveService (GLADyS's EXECUTIVE_ADDRESS).")
    ] = 50053,
) -> None:
    """Serve GLADyS's executive over its own gRPC wire, for one tenant: a GLADyS orchestrator calls
    phronesis where it called its executive."""
    if importlib.util.find_spec("grpc") is None:
        raise fail("phronesis grpc needs gRPC: pip install 'phronesis[grpc]'")
    from phronesis.gladys.server import serve

    async def work(engine: Engine) -> None:
        await serve(engine, tenant=tenant, host=host, executive_port=executive_port)

    with_engine(work, load_index=True)

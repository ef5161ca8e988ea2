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
    memory_port: Annotated[
        int,
        typer.Option(
            min=0, max=65535, help="gladys.memory.MemoryStorage, its heuristic calls (GLADyS's MEMORY_STORAGE_ADDRESS)."
        ),
    ] = 50051,
) -> None:
    """Serve GLADyS's executive and heuristic memory over its own gRPC wire, for one tenant: GLADyS's
    orchestrator and salience gateway call phronesis where they called their own services. One
    learner: where GLADyS's orchestrator learns (PHRONESIS_GLADYS__LEARNER=orchestrator, the
    default), phronesis's own implicit signals are off."""
    if importlib.util.find_spec("grpc") is None:
        raise fail("phronesis grpc needs gRPC: pip install 'phronesis[grpc]'")
    from phronesis.gladys.server import for_deployment, serve
    from phronesis.settings import load_settings

    async def work(engine: Engine) -> None:
        await serve(engine, tenant=tenant, host=host, executive_port=executive_port, memory_port=memory_port)

    with_engine(work, load_index=True, settings=lambda: for_deployment(load_settings()))

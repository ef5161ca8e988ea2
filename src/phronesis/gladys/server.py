"""``phronesis grpc``: GLADyS's executive and heuristic memory over its own gRPC wire, on loopback
by default, each on the port GLADyS's callers expect (``EXECUTIVE_ADDRESS`` 50053,
``MEMORY_STORAGE_ADDRESS`` 50051)."""

from __future__ import annotations

import asyncio
import logging
import signal

import grpc

from phronesis.engine import Engine
from phronesis.gladys.executive import ExecutiveServicer
from phronesis.gladys.wire import executive_pb2_grpc

__all__ = ["serve"]

log = logging.getLogger("phronesis.gladys")


async def serve(engine: Engine, *, tenant: str, host: str, executive_port: int) -> None:
    """Serve until SIGINT or SIGTERM, then stop taking calls and finish those in flight (the caller
    closes the engine)."""
    executive = grpc.aio.server()
    executive_pb2_grpc.add_ExecutiveServiceServicer_to_server(ExecutiveServicer(engine, tenant), executive)
    bound = executive.add_insecure_port(f"{host}:{executive_port}")
    if bound == 0:
        raise OSError(f"cannot listen on {host}:{executive_port}")
    await executive.start()
    log.info("gladys.v1.ExecutiveService on %s:%d for tenant %r", host, bound, tenant)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await executive.stop(grace=5)

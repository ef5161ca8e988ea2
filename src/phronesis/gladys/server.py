"""``phronesis grpc``: GLADyS's executive and heuristic memory over its own gRPC wire, on loopback
by default, each on the port GLADyS's callers expect (``EXECUTIVE_ADDRESS`` 50053,
``MEMORY_STORAGE_ADDRESS`` 50051)."""

from __future__ import annotations

import asyncio
import logging
import signal
from typing import Any

import grpc

from phronesis.engine import Engine
from phronesis.gladys.executive import ExecutiveServicer
from phronesis.gladys.memory import SERVED, SERVICE, MemoryServicer, not_served, unserved
from phronesis.gladys.wire import executive_pb2, executive_pb2_grpc, memory_pb2_grpc
from phronesis.loops import PeriodicLoop
from phronesis.settings import Settings

__all__ = ["Unserved", "for_deployment", "serve"]

log = logging.getLogger("phronesis.gladys")

EXECUTIVE = "gladys.v1.ExecutiveService"
EXECUTIVE_SERVED = tuple(executive_pb2.DESCRIPTOR.services_by_name["ExecutiveService"].methods_by_name)


def for_deployment(settings: Settings) -> Settings:
    """The settings ``phronesis grpc`` runs with: one learner (``gladys.learner``). Where GLADyS's
    orchestrator learns, phronesis records fires closed to its own implicit signals and does not
    read each decided event as a follow-up, so an undo, an ignore or a timeout counts once."""
    if settings.gladys.learner != "orchestrator":
        return settings
    return settings.model_copy(
        update={
            "learning": settings.learning.model_copy(update={"implicit_signals": False}),
            "executive": settings.executive.model_copy(update={"observe_on_decide": False}),
        }
    )


class Unserved(grpc.GenericRpcHandler):
    """Every call this port does not serve: ``UNIMPLEMENTED``, saying what it serves, and where the
    other service is when a call was sent to the wrong port (gRPC's own answer, "Method not found!",
    names neither)."""

    def __init__(self, here: str, served: dict[str, tuple[str, ...]], addresses: dict[str, str]) -> None:
        self._here = here
        self._served = served
        self._addresses = addresses

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler[Any, Any] | None:
        method: str = handler_call_details.method
        service, _, name = method.lstrip("/").partition("/")
        if service == self._here:
            said = unserved(name) if service == SERVICE else not_served(service, name, self._served[service])
        elif service in self._addresses:
            said = f"{service} is served on {self._addresses[service]}, not on this port ({self._here})"
        else:
            said = f"phronesis serves {self._here} on this port, not {service}"

        async def refuse(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
            await context.abort(grpc.StatusCode.UNIMPLEMENTED, said)
            raise AssertionError("abort raises")  # pragma: no cover

        return grpc.unary_unary_rpc_method_handler(refuse)


async def serve(engine: Engine, *, tenant: str, host: str, executive_port: int, memory_port: int) -> None:
    """Serve both services until SIGINT or SIGTERM, then stop taking calls and finish those in flight
    (the caller closes the engine). Where phronesis learns (``gladys.learner``), its fires' timeouts
    are swept on the clock here too, as ``phronesis serve`` does."""
    await engine.embedder.embed(["warm-up"])  # the sentence model loaded before the first call, not in it
    log.info("%s", engine.summary())  # ready only once the model is
    executive = grpc.aio.server()
    executive_pb2_grpc.add_ExecutiveServiceServicer_to_server(ExecutiveServicer(engine, tenant), executive)
    memory = grpc.aio.server()
    memory_pb2_grpc.add_MemoryStorageServicer_to_server(MemoryServicer(engine, tenant), memory)
    bound = {name: _bind(server, host, port) for name, server, port in (
        (EXECUTIVE, executive, executive_port),
        (SERVICE, memory, memory_port),
    )}  # fmt: skip
    addresses = {name: f"{host}:{port}" for name, port in bound.items()}
    served = {EXECUTIVE: EXECUTIVE_SERVED, SERVICE: SERVED}
    executive.add_generic_rpc_handlers((Unserved(EXECUTIVE, served, addresses),))
    memory.add_generic_rpc_handlers((Unserved(SERVICE, served, addresses),))
    await executive.start()
    await memory.start()
    for name, port in bound.items():
        log.info("%s on %s:%d for tenant %r", name, host, port, tenant)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    # seed 001 on the clock where phronesis learns: "no complaint within the window" is a timeout positive
    sweeping = (
        loop.create_task(
            PeriodicLoop("learning-sweep", engine.learning.sweep, engine.settings.learning.sweep_interval_sec).run()
        )
        if engine.settings.learning.implicit_signals
        else None
    )
    try:
        await stop.wait()
    finally:
        if sweeping is not None:
            sweeping.cancel()
        await asyncio.gather(executive.stop(grace=5), memory.stop(grace=5))


def _bind(server: grpc.aio.Server, host: str, port: int) -> int:
    bound = server.add_insecure_port(f"{host}:{port}")
    if bound == 0:
        raise OSError(f"cannot listen on {host}:{port}")
    return bound

"""The MCP server over streamable HTTP, served by the app at ``/mcp``, with the API's own
keys: a request whose key names no tenant is refused before any MCP message is read, and each
tool call acts for the tenant of the key that carried it.

Stateless (each request its own transport, nothing held between requests), so any of N API
workers can answer any request of a client's session, as every ``/v1`` call can.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from phronesis.api.auth import CHALLENGE, Unauthorized, tenant_of_request
from phronesis.api.problems import problem_response
from phronesis.embeddings.cache import cache_scope
from phronesis.engine import Engine
from phronesis.mcp.tools import TenantOf, build_server
from phronesis.settings import ApiSettings

__all__ = ["PATH", "KeyGuard", "http_tenant", "mount"]

PATH = "/mcp"


class KeyGuard:
    """ASGI: the MCP endpoint answers a request with a tenant (its API key, or dev mode from
    loopback), else a 401 problem+json, as ``/v1`` does."""

    def __init__(self, app: ASGIApp, settings: ApiSettings) -> None:
        self._app = app
        self._settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("method") == "GET":  # a browser or curl would wait on an event stream that never speaks
            detail = (
                "this is phronesis's MCP endpoint (streamable HTTP): an MCP client sends JSON-RPC messages "
                "with POST; the server is stateless and opens no event stream on GET"
            )
            response = problem_response(405, "Method Not Allowed", detail, headers={"Allow": "POST, DELETE"})
            await response(scope, receive, send)
            return
        try:
            tenant_of_request(Request(scope), self._settings)
        except Unauthorized as exc:
            response = problem_response(401, "Unauthorized", str(exc), headers=CHALLENGE)
            await response(scope, receive, send)
            return
        await self._app(scope, receive, send)


def http_tenant(settings: ApiSettings) -> TenantOf:
    """The tenant of the HTTP request that carried a tool call."""

    def tenant(ctx: Context) -> str:
        request = ctx.request_context.request
        if not isinstance(request, Request):
            raise ToolError("this tool call came without its HTTP request: no tenant to act for")
        try:
            return cache_scope(tenant_of_request(request, settings))  # the tenant's own embedding cache
        except Unauthorized as exc:  # KeyGuard refused it already; kept for a server mounted without it
            raise ToolError(str(exc)) from None

    return tenant


def mount(app: FastAPI, engine: Engine) -> MCPServer:
    """Serve ``engine``'s tools at ``/mcp``. The caller's lifespan runs ``server.session_manager.run()``."""
    settings = engine.settings.api
    server = build_server(engine, http_tenant(settings))
    # keys guard every request; a keyless dev server (loopback only) also refuses another Host or
    # Origin, so a web page cannot reach it through DNS rebinding
    loopback = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=settings.dev_mode,
        allowed_hosts=loopback,
        allowed_origins=[f"http://{host}" for host in loopback],
    )
    inner = server.streamable_http_app(
        streamable_http_path=PATH, stateless_http=True, json_response=True, transport_security=security
    )
    # an ASGI endpoint (not a request handler): the transport answers with its own stream
    app.router.routes.append(Route(PATH, KeyGuard(inner, settings), methods=["GET", "POST", "DELETE"]))
    return server

"""A tool call's arguments checked against the tool's own input schema before the SDK reads them:
an argument no tool parameter names is refused, not silently dropped (a misspelt ``strategy``
would decide by another strategy), and a value out of range is one line naming
the argument, not a pydantic dump."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp_types import CallToolResult, TextContent

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["ArgumentCheck", "problem"]


def problem(tool: str, schema: dict[str, Any], arguments: dict[str, Any]) -> str | None:
    """What is wrong with ``arguments`` for ``tool`` (its input ``schema``), or None."""
    known = schema.get("properties", {})
    unknown = sorted(set(arguments) - set(known))
    if unknown:
        takes = ", ".join(known)
        return f"{unknown[0]}: {tool} takes no such argument (it takes {takes})"
    error = best_match(Draft202012Validator(schema).iter_errors(arguments))
    if error is None:
        return None
    where = ".".join(str(part) for part in error.absolute_path) or "(arguments)"
    if error.validator == "anyOf":  # an optional argument: say what it takes, not "any of the given schemas"
        kinds = [str(s.get("type")) for s in error.schema.get("anyOf", []) if s.get("type") not in (None, "null")]
        return f"{where}: {error.instance!r} is not {' or '.join(_A.get(k, k) for k in kinds) or 'valid'}"
    return f"{where}: {error.message}"


_A = {
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "boolean": "true or false",
    "array": "a list",
}


class ArgumentCheck(ServerMiddleware[Any]):
    """Refuses a ``tools/call`` whose arguments do not fit the tool (``problem``) with a tool error
    the calling LLM can read and correct; every other message passes through."""

    def __init__(self) -> None:
        self.server: MCPServer | None = None
        self._schemas: dict[str, dict[str, Any]] | None = None

    async def _schema(self, tool: str) -> dict[str, Any] | None:
        if self._schemas is None:
            assert self.server is not None, "ArgumentCheck.server is set once the server is built"
            self._schemas = {t.name: t.input_schema for t in await self.server.list_tools()}
        return self._schemas.get(tool)

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        params = ctx.params or {}
        if ctx.method != "tools/call" or not isinstance(params.get("name"), str):
            return await call_next(ctx)
        schema = await self._schema(params["name"])
        arguments = params.get("arguments") or {}
        found = (
            problem(params["name"], schema, arguments) if schema is not None and isinstance(arguments, dict) else None
        )
        if found is None:
            return await call_next(ctx)  # an unknown tool: the SDK says so
        # worded as the SDK words a tool's own error, so a model sees one form
        text = f"Error executing tool {params['name']}: {found}"
        return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)

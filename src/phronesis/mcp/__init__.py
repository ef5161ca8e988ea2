"""phronesis over the Model Context Protocol: the decision points as tools for agents
and agent IDEs, over stdio (``phronesis mcp``) and streamable HTTP (the app's ``/mcp``)."""

from phronesis.mcp.tools import INSTRUCTIONS, TenantOf, build_server, fixed_tenant

__all__ = ["INSTRUCTIONS", "TenantOf", "build_server", "fixed_tenant"]

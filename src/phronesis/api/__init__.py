"""The HTTP API's routers, bodies, problems and authentication (FastAPI). The app that serves them
beside the dashboard and MCP is ``phronesis.server``'s ``create_app``: the dashboard and MCP use
this package's authentication and problems, so the package that mounts all three sits above them."""

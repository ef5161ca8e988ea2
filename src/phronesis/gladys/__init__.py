"""phronesis as a drop-in for GLADyS's executive and heuristic memory, over GLADyS's own gRPC wire
protocol (``wire/*.proto``: phronesis's description of that protocol, wire-compatible with it)."""

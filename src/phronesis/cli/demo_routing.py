"""The routing half of ``phronesis demo``: seed 002's own example queries, one session each."""

from __future__ import annotations

from rich.console import Console

from phronesis.engine import Engine
from phronesis.routing.documents import DocumentIn
from phronesis.routing.sessions import NewSession
from phronesis.routing.tools import ToolIn

__all__ = ["walk_routing"]

TENANT = "demo"
LEAD = {"email": "ann@acme.io", "name": "Ann", "company": "Acme", "status": "trial"}
QUERIES = [
    "What's your Starter plan pricing?",
    "Thanks, that helps!",
    "Book a meeting with me.",
    "How much does it cost?",
    "I demand a full refund and compensation for damages.",
    "Can I get a custom contract with special terms?",
]


async def walk_routing(engine: Engine, console: Console) -> None:
    routing = engine.routing
    await routing.add_documents(
        TENANT,
        [
            DocumentIn(
                id="pricing",
                doc_type="policy",
                title="Plans and pricing",
                text="Starter plan pricing: the Starter plan costs $29 per month for up to 3 users.",
            ),
            DocumentIn(
                id="refunds",
                doc_type="policy",
                title="Refund policy",
                text="Refunds are available within 30 days of purchase.",
            ),
        ],
    )
    await routing.put_tool(
        TENANT,
        ToolIn(
            name="calendar",
            description="book a meeting",
            parameters={
                "type": "object",
                "properties": {"email": {"type": "string"}, "time": {"type": "string"}},
                "required": ["email", "time"],
            },
            critical=True,
        ),
    )
    console.print("[bold]Routing (seed 002)[/bold]: each query in a new session of a known lead\n")
    for query in QUERIES:
        session = await routing.create_session(TENANT, NewSession(lead_context=LEAD))
        result = await engine.route(session.id, query, tenant=TENANT)
        confidence = "-" if result.confidence is None else f"{result.confidence:.2f}"
        console.print(f"   query: {query!r}", markup=False)
        console.print(f"   → {result.decision} (confidence {confidence}, {result.band} band, via {result.path})")
        console.print(f"   why: {result.reasoning}", markup=False)
        if result.composite is not None:
            factors = ", ".join(f"{k} {v:.2f}" for k, v in result.composite.factors.items() if v is not None)
            console.print(f"   composite {result.composite.value:.2f} from {factors}", markup=False)
        if result.message:
            console.print(f"   say: {result.message}", markup=False)
        console.print()

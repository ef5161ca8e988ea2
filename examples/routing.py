"""Seed 002, routing: each user turn is RETRIEVE, REASON_ONLY, USE_TOOL, CLARIFY or ESCALATE, with a
confidence, a band and the reasons.

A sales conversation in one session: documents to answer from, tools with example requests, and
a lead whose email and timezone are known. Runs in-process on the embedded defaults (SQLite in a
temporary data directory, the local sentence model and the bundled router, no LLM).

    python examples/routing.py

Uses ``PHRONESIS_DATA_DIR`` when it is set, else a temporary directory removed at the end.
Documented in docs/decisions/routing.md.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

from phronesis import Engine, load_settings
from phronesis.routing.documents import DocumentIn
from phronesis.routing.sessions import NewSession
from phronesis.routing.tools import ToolIn

TENANT = "example"

DOCUMENTS = [
    DocumentIn(
        id="pricing",
        doc_type="pricing",
        title="Plans and pricing",
        text="Starter costs $29 per month for up to 3 users. Pro costs $79 per month for up to 20 users.",
    ),
    DocumentIn(
        id="refunds",
        doc_type="policy",
        title="Refund policy",
        text="Annual plans are refundable within 30 days of purchase.",
    ),
]
TOOLS = [
    ToolIn(
        name="calendar",
        description="Book, reschedule or cancel meetings and demos",
        examples=["Book a meeting with me", "Schedule a demo next week", "Can we set up a call?"],
        parameters={
            "type": "object",
            "required": ["email", "time"],
            "properties": {
                "email": {"type": "string", "format": "email", "description": "Your email address"},
                "time": {"type": "string", "format": "date-time", "description": "When you would like to meet"},
            },
        },
    ),
    ToolIn(
        name="crm",
        description="Update the lead record: company name, contact details, status",
        examples=["Update my company name to Acme Corp.", "Change my phone number"],
    ),
]
TURNS = [
    "What is your Starter plan pricing?",
    "Book a meeting with me",  # the calendar needs a time: asked for
    "Thursday at 2pm works",  # the answer completes the call
    "Who won the football last night?",
    "Update my company name to Acme Corp.",
    "I want a refund for the entire year.",
]


async def main(data_dir: Path) -> None:
    async with Engine(load_settings(data_dir=data_dir)) as engine:
        await engine.routing.add_documents(TENANT, DOCUMENTS)
        for tool in TOOLS:
            await engine.routing.put_tool(TENANT, tool)
        lead = {"email": "ann@acme.io", "name": "Ann", "timezone": "Europe/Berlin"}
        session = await engine.routing.create_session(TENANT, NewSession(lead_context=lead))
        for query in TURNS:
            turn = await engine.route(session.id, query, tenant=TENANT)
            confidence = "-" if turn.confidence is None else f"{turn.confidence:.2f}"
            print(f"{query}\n  -> {turn.decision} ({confidence}, {turn.band} band, via {turn.path}): {turn.reasoning}")
            if turn.sources:
                print(f"     sources: {[source.id for source in turn.sources]}")
            if turn.decision == "USE_TOOL":
                print(f"     call: {turn.tool_arguments}")
            if turn.message:
                print(f"     say: {turn.message}")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="phronesis-example-") as scratch:
        asyncio.run(main(Path(os.environ.get("PHRONESIS_DATA_DIR") or scratch)))

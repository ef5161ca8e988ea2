"""The tool registry: what USE_TOOL may name, with a JSON Schema for each tool's arguments.

Seed 002 checks "if parameters available" before USE_TOOL; here a missing or ill-typed
argument turns USE_TOOL into CLARIFY naming the fields to ask for. Schemas are checked when
a tool is registered, so a bad schema is the registrant's 4xx, never a routing-time crash.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import Annotated, Any

from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import SchemaError
from pydantic import ConfigDict, Field, StringConstraints, ValidationInfo, field_validator
from sqlalchemy import bindparam, delete, select

from phronesis.clock import Clock
from phronesis.exceptions import NotFoundError
from phronesis.schema import Schema
from phronesis.storage.database import Database
from phronesis.storage.tables import routing_tools

__all__ = [
    "TOOL_NAME_PATTERN",
    "ArgumentProblem",
    "Tool",
    "ToolIn",
    "ToolPut",
    "ToolRepository",
    "ToolSpec",
    "argument_problems",
]


TOOL_NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_.-]*$"
ToolName = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=TOOL_NAME_PATTERN)]


class ToolSpec(Schema):
    """A tool's definition apart from its name (``PUT /v1/tools/{name}`` takes the name from the path)."""

    model_config = ConfigDict(extra="forbid")

    description: str = Field(min_length=1, max_length=2000)
    """What the tool does, in plain words (1–2000 characters): shown to the LLM router, matched
    against USE_TOOL queries with ``examples``, and used to word clarifying questions."""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    """A JSON Schema (2020-12) for the tool's arguments."""
    examples: list[Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]] = Field(
        default_factory=list, max_length=50
    )
    """Requests this tool serves ("Book a meeting with me"): with the description, what a USE_TOOL
    query is matched against to choose the tool (``routing.tool_choice``)."""
    critical: bool = False
    """True: when the tool still fails after its retries, the turn is escalated to a person; a tool
    that is not critical is skipped and the turn goes on without it."""
    retry_allowed: bool = True
    """Whether a failed call may be retried (up to ``routing.max_tool_retries``); False: the first
    failure is final."""
    read_only: bool = False
    """True: the tool only reads (an order's status, a calendar's free slots), so it is never
    confirmed first, whatever the confidence band."""
    confirm: bool = False
    """True: the tool commits the user to something (a contract, a payment), so once its
    arguments are complete the user is asked to confirm, and only a yes calls it."""

    @field_validator("confirm")
    @classmethod
    def _not_both(cls, confirm: bool, info: ValidationInfo) -> bool:
        if confirm and info.data.get("read_only"):
            raise ValueError("a read-only tool needs no confirmation: read_only and confirm cannot both be true")
        return confirm

    @field_validator("parameters")
    @classmethod
    def _a_schema(cls, schema: dict[str, Any]) -> dict[str, Any]:
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as exc:
            raise ValueError(f"not a valid JSON Schema: {exc.message}") from None
        return schema


class ToolIn(ToolSpec):
    name: ToolName
    """The tool's name (a letter, then letters, digits and ``_.-``; at most 64): what a decision's
    ``required_tools`` and tool outcomes name."""


class ToolPut(ToolSpec):
    """The body of ``PUT /v1/tools/{name}``: the name may be repeated, and must then agree."""

    name: ToolName | None = None
    """The tool's name; optional, as the path names it, and must match the path when given."""


class Tool(ToolIn):
    model_config = ConfigDict(extra="forbid", frozen=True)

    created_at: datetime
    """When the tool was first registered (UTC); replacing it keeps this."""
    updated_at: datetime
    """When the tool was last registered or replaced (UTC)."""


class ArgumentProblem(Schema):
    tool: str
    """The tool whose arguments have the problem."""
    field: str
    """The argument at fault (a dotted path for a nested one), or ``(arguments)`` for the whole."""
    problem: str
    """What is wrong: ``missing``, or the JSON Schema validation message."""


_FORMATS = FormatChecker(formats=())
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")


@_FORMATS.checks("email")
def _email(value: object) -> bool:
    return not isinstance(value, str) or _EMAIL.match(value) is not None


@_FORMATS.checks("date-time", raises=ValueError)
def _date_time(value: object) -> bool:
    """ISO 8601 with a date and a time; an offset may be left out (read in the lead's timezone)."""
    return not isinstance(value, str) or ("T" in value.upper() or " " in value) and bool(datetime.fromisoformat(value))


@_FORMATS.checks("date", raises=ValueError)
def _date(value: object) -> bool:
    return not isinstance(value, str) or bool(date.fromisoformat(value))


def argument_problems(tool: Tool, arguments: Mapping[str, Any]) -> list[ArgumentProblem]:
    """Every way ``arguments`` fail the tool's schema, formats included (an ``email`` that is not an
    address, a ``date-time`` that is not one: "soon"); missing required fields come first."""
    validator = Draft202012Validator(tool.parameters, format_checker=_FORMATS)
    problems: dict[tuple[str, str], ArgumentProblem] = {}
    for error in sorted(validator.iter_errors(dict(arguments)), key=lambda e: (e.validator != "required", e.path)):
        if error.validator == "required" and isinstance(error.instance, dict):
            # jsonschema reports one "required" error per missing field, each carrying the whole list
            required = error.validator_value if isinstance(error.validator_value, list) else []
            for name in required:
                if name not in error.instance:
                    problems.setdefault(
                        (str(name), "missing"), ArgumentProblem(tool=tool.name, field=str(name), problem="missing")
                    )
        else:
            field = ".".join(str(p) for p in error.absolute_path) or "(arguments)"
            problem = ArgumentProblem(tool=tool.name, field=field, problem=error.message[:200])
            problems.setdefault((field, problem.problem), problem)
    return list(problems.values())


def _tool(row: Mapping[str, Any]) -> Tool:
    data = dict(row)
    data.pop("tenant", None)
    data["examples"] = data.get("examples") or []  # tools registered before examples existed
    return Tool.model_validate(data)


_TOOL_KEYS = [column.key for column in routing_tools.columns]
_LIST = select(routing_tools).where(routing_tools.c.tenant == bindparam("w_tenant")).order_by(routing_tools.c.name)


class ToolRepository:
    def __init__(self, database: Database, clock: Clock) -> None:
        self._db = database
        self._clock = clock

    async def put(self, tenant: str, tool: ToolIn) -> Tool:
        """Register or replace a tool (one transaction: the old definition or the new, never half)."""
        return (await self.save(tenant, tool))[0]

    async def save(self, tenant: str, tool: ToolIn) -> tuple[Tool, bool]:
        """``put``, and whether the tool is new (a PUT that creates answers 201, like a document's)."""
        now = self._clock.now()
        async with self._db.transaction() as conn:
            existing = (
                await conn.execute(
                    select(routing_tools.c.created_at).where(
                        routing_tools.c.tenant == tenant, routing_tools.c.name == tool.name
                    )
                )
            ).scalar_one_or_none()
            await conn.execute(
                delete(routing_tools).where(routing_tools.c.tenant == tenant, routing_tools.c.name == tool.name)
            )
            values = tool.model_dump() | {"tenant": tenant, "created_at": existing or now, "updated_at": now}
            await conn.execute(routing_tools.insert().values(**values))
        return _tool(values), existing is None

    async def list(self, tenant: str) -> list[Tool]:
        # one point read (every turn routes with the tenant's tools): one hop to a SQLite file's reader lane
        rows = await self._db.read(_LIST, {"w_tenant": tenant})
        return [_tool(dict(zip(_TOOL_KEYS, row, strict=True))) for row in rows]

    async def get(self, tenant: str, name: str) -> Tool:
        c = routing_tools.c
        async with self._db.connect() as conn:
            row = (await conn.execute(select(routing_tools).where(c.tenant == tenant, c.name == name))).one_or_none()
        if row is None:
            raise NotFoundError("tool", name)
        return _tool(dict(row._mapping))

    async def delete(self, tenant: str, names: Sequence[str]) -> int:
        async with self._db.transaction() as conn:
            result = await conn.execute(
                delete(routing_tools).where(routing_tools.c.tenant == tenant, routing_tools.c.name.in_(list(names)))
            )
        return int(result.rowcount or 0)

"""A running server for the commands that embed text or answer by its configuration.

A CLI process that loads the sentence model again for one ``decide`` pays seconds a running server
has already paid; and a setting's warning (``always_llm`` where no LLM is configured, a strategy an
A/B experiment overrides) is about the server's configuration, which a CLI process's environment
need not share.

With ``PHRONESIS_URL`` set (and ``PHRONESIS_API_KEY`` where the server wants one), ``decide``,
``feedback``, ``heuristics add`` and ``settings`` send their request to that server with the typed
client (``phronesis.client``): the same validation, the same answer, the same database. Without it
they open the engine in this process and say so. The server acts for its API key's tenant, so
``--tenant`` is refused beside ``PHRONESIS_URL`` rather than silently ignored.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel
from rich.console import Console

from phronesis.cli.base import fail, refused, with_engine
from phronesis.tenants import DEFAULT_TENANT

if TYPE_CHECKING:
    from phronesis.client import APIError, Client
    from phronesis.engine import Engine

__all__ = ["URL", "served"]

T = TypeVar("T", bound=BaseModel)
URL = "PHRONESIS_URL"


def served(
    tenant: str,
    local: Callable[[Engine], Awaitable[T]],
    remote: Callable[[Client], BaseModel],
    *,
    answer: type[T],
    load_index: bool = True,
    embeds: bool = True,
    flags: Mapping[str, str] | None = None,
) -> T:
    """``remote`` on the server ``PHRONESIS_URL`` names, else ``local`` on an engine of this process;
    either way the answer is ``answer`` (the client reads the server's JSON into its own models).
    ``embeds``: the local work embeds text, so the model is loaded first under a visible step."""
    if not os.environ.get(URL):
        return with_engine(_loading(local) if embeds else local, load_index=load_index, flags=flags)
    if tenant != DEFAULT_TENANT:
        raise fail(
            f"--tenant: with {URL} set the server decides the tenant (PHRONESIS_API_KEY's, or its dev "
            f"tenant without a key); drop --tenant, or unset {URL} to work on the database directly"
        )
    from phronesis.client import Client, ClientError, Conflict, InvalidRequest

    try:
        with Client() as client:
            return answer.model_validate(remote(client).model_dump(mode="json"))
    except (InvalidRequest, Conflict) as exc:  # refused, before it was sent or by the server: named as typed
        first = exc.errors[0] if exc.errors else {"field": exc.field or "", "message": _message(exc)}
        loc = [part for part in str(first.get("field") or "").split(".") if part and part != "body"]
        raise refused(loc, str(first.get("message") or exc.detail), flags=flags) from None
    except ClientError as exc:
        raise fail(f"{os.environ[URL]}: {exc}") from None
    except ValueError as exc:  # a malformed PHRONESIS_URL or key
        raise fail(str(exc)) from None


def _message(exc: APIError) -> str:
    """A problem's detail without the field it names first ("user_score: …" → "…")."""
    field, detail = exc.field or "", exc.detail
    return detail.removeprefix(f"{field}: ") if field else detail


def _loading(work: Callable[[Engine], Awaitable[T]]) -> Callable[[Engine], Awaitable[T]]:
    """``work``, after the embedding model has loaded under a visible step (on standard error:
    standard output stays the command's answer)."""

    async def go(engine: Engine) -> T:
        said = f"loading {engine.embedder.model_name} in this process (set {URL} to use a running server)"
        with Console(stderr=True).status(said):
            await engine.embedder.embed(["warm-up"])
        return await work(engine)

    return go

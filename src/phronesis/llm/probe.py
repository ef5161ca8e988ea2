"""Is the LLM there? A free call, not a completion (``/readyz``).

A provider that can answer cheaply (listing models costs no tokens) has ``probe()``; the
wrappers (``ResilientLLM``, ``ConcurrencyLimitedLLM``) pass it through. A provider without
one is reported as ``unknown`` rather than called with a paid request.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from phronesis.llm.types import LLMProvider

__all__ = ["Probeable", "probe"]


@runtime_checkable
class Probeable(Protocol):
    async def probe(self) -> None:
        """Return if the LLM answers; raise ``LLMError`` (with its cause) if not."""
        ...


async def probe(llm: LLMProvider) -> bool:
    """True if ``llm`` could be probed and answered; False if it cannot be probed.
    Raises the provider's ``LLMError`` when it is down."""
    current: object = llm
    while not isinstance(current, Probeable):
        inner = getattr(current, "inner", None)
        if inner is None:
            return False
        current = inner
    await current.probe()
    return True

"""A tenant's tuned settings as a decision point sees them: the values it reads at each decision
(``TenantValues``, which ``tenant_settings.TenantSettings`` implements) and how a decision point
declares the settings a tenant may tune (``Tunable``: each point's ``tunables`` module).

Why a seam here: the decision points read a tenant's values, and the store that writes them
(``tenant_settings``) lists every point's tunables; with the protocol below neither imports the
other's package."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncConnection

__all__ = ["Applied", "SettingValue", "TenantValues", "Tunable"]

SettingValue = float | str
"""A number, or a choice's name (``Tunable.choices``)."""


@dataclass(frozen=True, slots=True)
class Applied:
    """A tenant's own values, read at once: numbers, and choices' names (``Tunable.choices``)."""

    numbers: dict[str, float]
    choices: dict[str, str]


@dataclass(frozen=True, slots=True)
class Tunable:
    """One setting a tenant may tune, and replay may evaluate: its dotted name, its configured value
    (read from its decision point's own settings section, ``section``), and what it takes."""

    name: str
    section: str
    """The ``Settings`` section ``configured`` reads (``executive``, ``routing`` …)."""
    configured: Callable[[Any], SettingValue]
    bounds: tuple[float, float] = (0.0, 1.0)
    whole: bool = False
    """It counts something: a whole number."""
    choices: tuple[str, ...] = ()
    """Names it takes instead of a number (empty: a number within ``bounds``)."""

    def of(self, settings: Any) -> SettingValue:
        """Its configured value in the whole ``Settings`` (its section's)."""
        return self.configured(getattr(settings, self.section))


class TenantValues(Protocol):
    """A tenant's applied values, read on a decision's path."""

    async def read(self, tenant: str, prefix: str, *, connection: AsyncConnection | None = None) -> Applied:
        """The tenant's own values named ``prefix…``, numbers and choices, in one read."""
        ...

    async def applied(self, tenant: str, prefix: str, *, connection: AsyncConnection | None = None) -> dict[str, float]:
        """The tenant's own numbers named ``prefix…``, in one read."""
        ...

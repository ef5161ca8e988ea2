"""Which local router a tenant's query goes to: its fitted one, or the bundled default.

With nothing fitted yet (a fresh install), the bundled router is fitted from the seed's own
examples (``exemplars/default.jsonl``: ten per decision and a few out-of-scope lines) so that
routing works with no LLM and no setup; ``phronesis routing fit`` replaces it with the tenant's
own. It is fitted once per machine and model (``fitted_routers``), and a server prepares it
before it answers (``prepare``): no request waits for a fit.
"""

from __future__ import annotations

import asyncio
from importlib import resources

from phronesis.embeddings.types import Embedder
from phronesis.routing.exemplars import parse_exemplar_lines
from phronesis.routing.fitted_routers import FittedRouters
from phronesis.routing.local_router import LocalRouter, RouterFitOptions
from phronesis.routing.router_store import RouterStore

__all__ = ["RouterResolver"]


class RouterResolver:
    def __init__(self, store: RouterStore, embedder: Embedder, name: str, fitted: FittedRouters) -> None:
        self._store = store
        self._embedder = embedder
        self._name = name
        self._fitted = fitted
        self._default: LocalRouter | None = None
        self._lock = asyncio.Lock()

    async def for_tenant(self, tenant: str) -> tuple[LocalRouter, str]:
        """The router and where it came from (``fitted:<name>`` or ``bundled_default``)."""
        fitted = await self._store.load(tenant, self._name)
        if fitted is not None:
            return fitted, f"fitted:{self._name}"
        return await self.default(), "bundled_default"

    async def default(self) -> LocalRouter:
        async with self._lock:
            if self._default is None:
                text = resources.files("phronesis.routing").joinpath("exemplars", "default.jsonl").read_text("utf-8")
                exemplars = parse_exemplar_lines(text.splitlines(), source="default.jsonl")
                # small data: fewer lexical buckets, the single nearest exemplar (five neighbours
                # would reach into other decisions), two per decision held out to calibrate, then
                # refit on all
                options = RouterFitOptions(lexical_width=2**12, holdout_fraction=0.2, knn_k=1, refit=True)
                self._default = await self._fitted.fit(exemplars, self._embedder, options=options)
            return self._default

    async def prepare(self) -> None:
        """Have the bundled router ready (fitted, or read from where an earlier fit kept it) and its
        prediction thread started, so that a fresh process's first routed turn costs what any turn
        does. A server calls it at start-up."""
        router = await self.default()
        text = "warm-up"
        await router.predict_off_loop(await self._embedder.embed([text]), [text], ambiguity_margin=0.0)

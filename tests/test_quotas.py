"""Quotas count a tenant's rows from the database at most every ``refresh_s``, and the process's own
additions in between: a burst faster than the refresh cannot pass the quota through one process."""

from __future__ import annotations

import pytest

from phronesis.exceptions import QuotaExceededError
from phronesis.heuristics.models import HeuristicCreate
from phronesis.quotas import TenantQuotas
from phronesis.settings import QuotaSettings
from tests.engines import EngineFactory


async def test_a_process_counts_what_it_let_through_until_it_reads_again(make_engine: EngineFactory) -> None:
    engine = await make_engine()
    now = [0.0]
    quotas = TenantQuotas(engine.database, QuotaSettings(heuristics=3, refresh_s=60), monotonic=lambda: now[0])
    await quotas.reserve("t", "heuristics", 2)  # counted 0 in the database, 2 reserved
    with pytest.raises(QuotaExceededError, match="stores 2 heuristics and its quota is 3"):
        await quotas.reserve("t", "heuristics", 2)  # nothing written yet: the reservation still counts
    await quotas.reserve("other", "heuristics", 3)  # each tenant its own

    now[0] = 61.0  # the next read finds what was really stored: none of the reserved two were
    await quotas.reserve("t", "heuristics", 3)
    await engine.heuristics.add("u", HeuristicCreate(condition_text="it is dark", action_text="light"))
    now[0] = 200.0
    with pytest.raises(QuotaExceededError):
        await quotas.reserve("u", "heuristics", 3)  # 1 stored + 3 > 3
    await quotas.reserve("u", "heuristics", 2)


async def test_no_quota_counts_nothing(make_engine: EngineFactory) -> None:
    engine = await make_engine()

    def counted() -> float:
        raise AssertionError("a kind without a quota was counted")

    quotas = TenantQuotas(engine.database, QuotaSettings(users=5), monotonic=counted)
    await quotas.reserve("t", "documents", 10_000_000)
    await quotas.reserve_new("t", "documents", "d1")
    with pytest.raises(AssertionError, match="counted"):
        await quotas.reserve_new("t", "users", "u1")  # a kind with one is

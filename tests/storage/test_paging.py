"""Every listing's page (``storage.paging.fetch_page``): paging through a listing with any page
size gives each item once, in order, and every page says the same total."""

from __future__ import annotations

import pytest

from phronesis.engine import Engine
from phronesis.pages import Page, page_of
from tests.engines import add_heuristic


async def test_paging_through_a_listing_gives_every_item_once_with_its_total(engine: Engine) -> None:
    for n in range(7):
        await add_heuristic(engine, f"the sensor {n} reports a leak", f"close valve {n}", 0.5, domain=f"d{n % 2}")
    whole = await engine.heuristics.repository.list("default", limit=100)
    assert (whole.total, len(whole.items)) == (7, 7)
    for limit in range(1, 9):
        seen: list[str] = []
        for offset in range(0, 8, limit):
            page = await engine.heuristics.repository.list("default", limit=limit, offset=offset)
            assert (page.total, page.limit, page.offset) == (7, limit, offset)
            assert len(page.items) == min(limit, max(0, 7 - offset))
            seen += [h.id for h in page.items]
        assert seen == [h.id for h in whole.items]
    filtered = await engine.heuristics.repository.list("default", domain="d1", limit=1)
    assert (len(filtered.items), filtered.total) == (1, 3)  # the filters count, not the table
    assert (await engine.heuristics.repository.list("other", limit=5)).total == 0


@pytest.mark.parametrize(("limit", "offset"), [(1, 0), (2, 3), (10, 0), (3, 9)])
def test_a_page_of_a_list_held_whole(limit: int, offset: int) -> None:
    items = list(range(9))
    page: Page[int] = page_of(items, limit=limit, offset=offset)
    assert (page.items, page.total) == (items[offset : offset + limit], 9)


def test_a_page_is_named_for_its_items_in_the_schema() -> None:
    from phronesis.heuristics.models import Heuristic

    assert Page[Heuristic].model_json_schema()["title"] == "HeuristicPage"

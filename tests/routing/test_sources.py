"""Sources by meaning, then freshness (issue 47, item 4): an old page is still found, an outdated one
does not stand against the current one, and a conflict that stands says which sources and dates."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from phronesis.engine import Engine
from phronesis.routing.conflicts import _clash, _statements
from phronesis.routing.documents import DocumentIn
from phronesis.routing.retrieval import RetrievedSource
from phronesis.routing.sessions import NewSession
from tests.engines import EngineFactory

T = "default"
QUERY = "is customer data encrypted at rest and in transit"
PRICE = "the pro plan price per month"


async def _knowing(make_engine: EngineFactory, *documents: DocumentIn, min_score: float = 0.0) -> Engine:
    """An engine whose knowledge base holds ``documents``, keeping sources down to ``min_score``."""
    engine: Engine = await make_engine(routing={"retrieval_min_score": min_score})
    await engine.routing.add_documents(T, list(documents))
    return engine


async def _retrieve(engine: Engine, query: str) -> Any:
    return await engine.routing.service.parts.retriever.retrieve(T, query, top_k=4)


async def test_a_year_old_page_is_found_as_an_undated_one_would_be(make_engine: EngineFactory) -> None:
    """ "Is my data encrypted?" against a security page dated a year back found nothing (recency
    0.02 of its 0.2 weight); undated, the same page answered. Age ranks; it does not hide."""
    old = DocumentIn(
        id="security", doc_type="policy", title="Security", text=QUERY, published_at=datetime(2025, 1, 1, tzinfo=UTC)
    )
    engine = await _knowing(make_engine, old, min_score=0.85)
    found = await _retrieve(engine, QUERY)
    assert [s.id for s in found.sources] == ["security"]
    assert found.sources[0].score < 0.85  # its own score is below the floor: only its relevance counts there


async def test_a_superseded_document_gives_way_to_the_current_one(make_engine: EngineFactory) -> None:
    engine = await _knowing(
        make_engine,
        DocumentIn(id="pricing", doc_type="pricing", title="Plans and pricing", text=f"{PRICE} is $79."),
        DocumentIn(
            id="pricing-2022",
            doc_type="pricing",
            title="Price sheet 2022",
            text=f"{PRICE} is $59.",
            status="superseded",
        ),
    )
    found = await _retrieve(engine, PRICE)
    assert [s.id for s in found.sources] == ["pricing"] and not found.conflicts
    assert [(x.id, x.by) for x in found.superseded] == [("pricing-2022", "pricing")]
    await engine.routing.documents.delete(T, "pricing")
    alone = await _retrieve(engine, PRICE)  # alone, the old sheet is kept, and marked
    assert [(s.id, s.superseded_by) for s in alone.sources] == [("pricing-2022", "(none found)")]


async def test_a_newer_dated_source_stands_over_an_older_one_it_contradicts(make_engine: EngineFactory) -> None:
    """A 2022 price sheet beside the current one made every pricing question escalate as a conflict."""
    engine = await _knowing(
        make_engine,
        DocumentIn(
            id="old",
            doc_type="pricing",
            title="Prices 2022",
            text=f"{PRICE} is $59.",
            published_at=datetime(2022, 1, 10, tzinfo=UTC),
        ),
        DocumentIn(
            id="new",
            doc_type="pricing",
            title="Prices 2026",
            text=f"{PRICE} is $79.",
            published_at=datetime(2025, 12, 1, tzinfo=UTC),
        ),
    )
    found = await _retrieve(engine, PRICE)
    assert [s.id for s in found.sources] == ["new"] and not found.conflicts
    assert (
        found.superseded[0].id == "old"
        and "Prices 2026, 2025-12-01 is newer than Prices 2022, 2022-01-10" in found.superseded[0].why
    )
    sid = (await engine.routing.create_session(T, NewSession())).id
    routed = await engine.route(sid, PRICE)
    assert routed.superseded and routed.superseded[0]["id"] == "old"


async def test_a_conflict_that_stands_names_both_sources_and_their_dates(make_engine: EngineFactory) -> None:
    engine = await _knowing(
        make_engine,
        DocumentIn(id="a", doc_type="pricing", title="Price list A", text=f"{PRICE} is $59."),
        DocumentIn(
            id="b",
            doc_type="pricing",
            title="Price list B",
            text=f"{PRICE} is $79.",
            published_at=datetime(2025, 12, 1, tzinfo=UTC),
        ),
    )
    found = await _retrieve(engine, PRICE)
    assert len(found.conflicts) == 1
    reason = found.conflicts[0].reason
    assert "Price list A, undated" in reason and "Price list B, 2025-12-01" in reason


@pytest.mark.parametrize(
    ("first", "second", "conflict"),
    [
        # from a fresh-clone trial: two plans' prices, and two pages that agree, "conflicted"
        ("The Starter plan costs $29 per month.", "The Pro plan costs $79 per month.", False),
        ("Pro costs $79 per month.", "Starter costs $29 per month for up to 3 users. Pro costs $79 per month.", False),
        ("Monthly plans renew every 30 days.", "Annual plans renew every 12 months.", False),
        ("The Pro plan costs $79 per month.", "The Pro plan costs $59 per month.", True),
        ("Starter costs $29 per month for up to 3 users.", "Starter costs $19 per month for up to 3 users.", True),
    ],
)
def test_statements_about_different_things_do_not_conflict(first: str, second: str, conflict: bool) -> None:
    assert (_clash(_statements(first), _statements(second)) is not None) is conflict


def test_a_source_kept_alone_though_superseded_says_so() -> None:
    source = RetrievedSource(
        id="old",
        doc_type="sop",
        text="t",
        similarity=0.9,
        recency=0.1,
        quality=0.9,
        score=0.7,
        superseded_by="(none found)",
    )
    assert source.summary()["superseded_by"] == "(none found)"

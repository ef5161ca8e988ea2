"""Fitted routers are kept by what they were fitted from (issue 45): one fit serves every later ask
with the same inputs, any change to the inputs fits again, and a fit runs on one thread."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from threadpoolctl import threadpool_info

from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.routing import fitted_routers
from phronesis.routing.exemplars import Exemplar
from phronesis.routing.fitted_routers import FittedRouters
from phronesis.routing.local_router import LocalRouter, RouterFitOptions
from tests.routing.conftest import exemplars, out_of_scope

OPTIONS = RouterFitOptions(lexical_width=2**10, holdout_fraction=0.34, knn_k=1, refit=True)
TEXTS = ["how much does the pro plan cost", "book a meeting on friday", "thanks a lot", "weather in paris"]


@pytest.fixture(autouse=True)
def _empty_process_table() -> Iterator[None]:
    """Each test starts as a fresh process would: nothing fitted in memory."""
    FittedRouters._memory.clear()
    yield
    FittedRouters._memory.clear()


@pytest.fixture
def fits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many real fits ran (each call appends)."""
    counted: list[int] = []
    real = LocalRouter.fit.__func__  # type: ignore[attr-defined]

    async def counting(cls: type[LocalRouter], *args: Any, **kwargs: Any) -> LocalRouter:
        counted.append(1)
        router: LocalRouter = await real(cls, *args, **kwargs)
        return router

    monkeypatch.setattr(LocalRouter, "fit", classmethod(counting))
    return counted


async def _labels(router: LocalRouter, embedder: HashingEmbedder) -> list[tuple[str, float]]:
    predictions = await router.predict(TEXTS, embedder, ambiguity_margin=0.1)
    return [(p.label, round(p.probability, 5)) for p in predictions]


async def test_the_same_inputs_are_fitted_once_and_answer_alike(embedder: HashingEmbedder, fits: list[int]) -> None:
    routers = FittedRouters()
    first = await routers.fit(exemplars(), embedder, oos=out_of_scope(), options=OPTIONS)
    again = await FittedRouters().fit(exemplars(), embedder, oos=out_of_scope(), options=OPTIONS)
    assert len(fits) == 1
    assert await _labels(first, embedder) == await _labels(again, embedder)


@pytest.mark.parametrize(
    "change",
    ["exemplars", "out_of_scope", "options", "model"],
)
async def test_any_change_to_what_a_fit_depends_on_fits_again(
    change: str, embedder: HashingEmbedder, fits: list[int]
) -> None:
    routers = FittedRouters()
    await routers.fit(exemplars(), embedder, oos=out_of_scope(), options=OPTIONS)
    lines, oos, options, model = exemplars(), out_of_scope(), OPTIONS, embedder
    if change == "exemplars":
        lines = [*lines, Exemplar(text="what does the team plan cost", label="pricing", decision="RETRIEVE")]  # type: ignore[arg-type]
    elif change == "out_of_scope":
        oos = oos[:-1]
    elif change == "options":
        options = RouterFitOptions(lexical_width=2**10, holdout_fraction=0.34, knn_k=2, refit=True)
    else:
        model = HashingEmbedder(256)
    await routers.fit(lines, model, oos=oos, options=options)
    assert len(fits) == 2


async def test_another_process_reads_the_fit_from_disk(
    embedder: HashingEmbedder, fits: list[int], tmp_path: Path
) -> None:
    fitted = await FittedRouters(tmp_path).fit(exemplars(), embedder, oos=out_of_scope(), options=OPTIONS)
    assert len(list(tmp_path.glob("*.json"))) == 1
    FittedRouters._memory.clear()  # a new process: only the directory is shared
    read = await FittedRouters(tmp_path).fit(exemplars(), embedder, oos=out_of_scope(), options=OPTIONS)
    assert len(fits) == 1
    assert await _labels(read, embedder) == await _labels(fitted, embedder)


async def test_a_damaged_file_is_fitted_again_and_replaced(
    embedder: HashingEmbedder, fits: list[int], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    await FittedRouters(tmp_path).fit(exemplars(), embedder, oos=out_of_scope(), options=OPTIONS)
    [stored] = tmp_path.glob("*.json")
    stored.write_text(stored.read_text()[:200])
    FittedRouters._memory.clear()
    router = await FittedRouters(tmp_path).fit(exemplars(), embedder, oos=out_of_scope(), options=OPTIONS)
    assert len(fits) == 2
    assert "cannot be read" in caplog.text
    assert [p.label for p in await router.predict(TEXTS[:1], embedder, ambiguity_margin=0.1)] == ["pricing"]
    FittedRouters._memory.clear()
    await FittedRouters(tmp_path).fit(exemplars(), embedder, oos=out_of_scope(), options=OPTIONS)
    assert len(fits) == 2  # the replacement is read


async def test_a_directory_that_cannot_be_written_still_routes(
    embedder: HashingEmbedder, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    router = await FittedRouters(blocked / "routers").fit(exemplars(), embedder, oos=out_of_scope(), options=OPTIONS)
    assert "not kept on disk" in caplog.text
    assert [p.label for p in await router.predict(TEXTS[:1], embedder, ambiguity_margin=0.1)] == ["pricing"]


async def test_a_fit_runs_on_one_thread_and_restores_the_counts(embedder: HashingEmbedder) -> None:
    import torch

    from phronesis.routing.one_thread import blas

    blas()  # the libraries found for predictions, then one loaded later (faiss brings its own OpenBLAS):
    import faiss  # noqa: F401 - the fit limits it too (found once, it was missed in an xdist worker)

    def blas_threads() -> list[int]:
        return [int(i["num_threads"]) for i in threadpool_info() if i["user_api"] == "blas"]

    before_torch, before_blas = torch.get_num_threads(), blas_threads()
    seen: list[tuple[int, list[int]]] = []

    def watch(message: str) -> None:
        if "epoch" in message or "calibrating" in message:  # said inside the fit, not while embedding
            seen.append((torch.get_num_threads(), blas_threads()))

    await LocalRouter.fit(exemplars(), embedder, oos=out_of_scope(), options=OPTIONS, progress=watch)
    assert len(seen) > 10 and all(count == (1, [1] * len(before_blas)) for count in seen)
    assert (torch.get_num_threads(), blas_threads()) == (before_torch, before_blas)


def test_the_digest_covers_the_fitting_code() -> None:
    assert {"classifier.py", "local_router.py", "calibration.py", "lexical.py"} <= set(fitted_routers._FITTING_CODE)


async def test_a_fresh_server_fits_the_bundled_router_before_it_answers(
    fits: list[int], tmp_path: Path
) -> None:
    """The first routed turn of a fresh server fits nothing: the server did it at start-up (before
    it answered anything, /readyz included) and kept it; a second server reads what the first kept."""
    import httpx

    from phronesis.engine import Engine
    from phronesis.server import create_app
    from phronesis.settings import Settings
    from tests.loopback import serving_app

    def fresh_server(name: str) -> Engine:
        settings = Settings(
            data_dir=tmp_path / name,
            embeddings={"spec": "hashing:384"},
            routing={"router_cache_dir": tmp_path / "routers"},
            api={"keys": {"sk-fresh": "t"}},
            proactive={"scheduler": False},
        )
        return Engine(settings, embedder=HashingEmbedder(384), llm=None)

    with serving_app(create_app(fresh_server("one"), close_engine=True)) as base:
        assert len(fits) == 1  # at start-up
        with httpx.Client(base_url=base, timeout=30, headers={"Authorization": "Bearer sk-fresh"}) as client:
            assert client.get("/readyz").status_code == 200
            client.post("/v1/sessions", json={"id": "s-1"}).raise_for_status()
            routed = client.post("/v1/sessions/s-1/route", json={"query": "thanks, that helps"})
            assert routed.status_code == 200, routed.text
    assert len(fits) == 1  # not in the request
    assert len(list((tmp_path / "routers").glob("*.json"))) == 1
    FittedRouters._memory.clear()  # another process
    with serving_app(create_app(fresh_server("two"), close_engine=True)):
        assert len(fits) == 1  # read from what the first kept


async def test_a_directory_keeps_the_newest_routers_only(embedder: HashingEmbedder, tmp_path: Path) -> None:
    """A change to the exemplars or the fitting code makes a new file: the oldest beyond sixteen go."""
    import os

    for n in range(18):
        (tmp_path / f"old{n:02d}.json").write_text("{}")
        os.utime(tmp_path / f"old{n:02d}.json", (n, n))
    await FittedRouters(tmp_path).fit(exemplars(), embedder, oos=out_of_scope(), options=OPTIONS)
    kept = sorted(path.name for path in tmp_path.glob("*.json"))
    assert len(kept) == 16 and "old17.json" in kept and "old02.json" not in kept

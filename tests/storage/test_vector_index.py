"""One contract for every vector index (river-style), plus partitioning rules."""

from __future__ import annotations

import io
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phronesis.embeddings.types import l2_normalize
from phronesis.storage.hnsw_index import HnswVectorIndex
from phronesis.storage.partitioned_index import PartitionedIndex
from phronesis.storage.vector_index import ExactVectorIndex, VectorIndex

DIM = 32
FACTORIES: dict[str, Callable[[], VectorIndex]] = {
    "exact": lambda: ExactVectorIndex(DIM, initial_capacity=2),
    "hnsw": lambda: HnswVectorIndex(DIM),
}


def vectors(n: int, seed: int = 0) -> np.ndarray:
    return l2_normalize(np.random.default_rng(seed).normal(size=(n, DIM)))


@pytest.fixture(params=sorted(FACTORIES))
def index(request: pytest.FixtureRequest) -> VectorIndex:
    return FACTORIES[request.param]()


def test_finds_itself_first_with_similarity_one(index: VectorIndex) -> None:
    data = vectors(50)
    index.upsert([f"k{i}" for i in range(50)], data)
    assert len(index) == 50
    hits = index.search(data[17], 3)
    assert hits[0][0] == "k17" and hits[0][1] == pytest.approx(1.0, abs=1e-5)
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)


def test_upsert_replaces_and_remove_forgets(index: VectorIndex) -> None:
    data = vectors(10)
    index.upsert([f"k{i}" for i in range(10)], data)
    index.upsert(["k3"], data[7:8])
    assert len(index) == 10
    assert {key for key, _ in index.search(data[7], 2)} == {"k3", "k7"}
    assert index.remove("k7") and not index.remove("k7")
    assert "k7" not in index and len(index) == 9
    assert all(key != "k7" for key, _ in index.search(data[7], 9))


def test_search_many_answers_as_one_search_per_query(index: VectorIndex) -> None:
    data = vectors(300)
    index.upsert([f"k{i}" for i in range(300)], data)
    for i in range(0, 300, 7):  # tombstones in the HNSW index, moved rows in the exact one
        index.remove(f"k{i}")
    queries = vectors(20, seed=5)
    together = index.search_many(queries, 5)
    assert len(together) == 20
    for query, found in zip(queries, together, strict=True):
        alone = index.search(query, 5)
        assert [key for key, _ in found] == [key for key, _ in alone]
        assert [score for _, score in found] == pytest.approx([score for _, score in alone], abs=1e-5)
    assert index.search_many(queries[:3], 0) == [[], [], []]


def test_empty_index_and_k_larger_than_size(index: VectorIndex) -> None:
    assert index.search(vectors(1)[0], 5) == []
    index.upsert(["a", "b"], vectors(2))
    assert len(index.search(vectors(1, seed=3)[0], 10)) == 2


def test_items_round_trip(index: VectorIndex) -> None:
    data = vectors(5)
    index.upsert(list("abcde"), data)
    got = dict(index.items())
    assert set(got) == set("abcde")
    np.testing.assert_allclose(got["c"], data[2], atol=1e-6)


def test_dump_and_restore_give_back_the_same_answers(index: VectorIndex) -> None:
    """What a snapshot stores (``storage.index_snapshot``): removed keys stay removed."""
    data = vectors(40)
    index.upsert([f"k{i}" for i in range(40)], data)
    index.remove("k5")
    index.upsert(["k6"], data[9:10])
    slots, blob = index.dump()
    restored = type(index)(DIM)
    restored.restore(slots, io.BytesIO(blob.tobytes()).read)
    assert len(restored) == len(index) == 39 and "k5" not in restored
    assert restored.search_many(data, 5) == index.search_many(data, 5)
    restored.upsert(["k40"], data[5:6])  # still a working index
    assert restored.search(data[5], 1)[0][0] == "k40"


def test_restore_refuses_data_of_another_shape(index: VectorIndex) -> None:
    index.upsert(["a", "b"], vectors(2))
    slots, blob = index.dump()
    with pytest.raises(ValueError):
        type(index)(DIM).restore([*slots, "c"], io.BytesIO(blob.tobytes()).read)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["upsert", "remove"]), st.integers(0, 15)), max_size=60))
def test_exact_index_matches_a_dict_model(operations: list[tuple[str, int]]) -> None:
    index = ExactVectorIndex(DIM, initial_capacity=1)
    model: dict[str, np.ndarray] = {}
    data = vectors(16)
    for op, i in operations:
        key = f"k{i}"
        if op == "upsert":
            index.upsert([key], data[i : i + 1])
            model[key] = data[i]
        else:
            assert index.remove(key) == (model.pop(key, None) is not None)
    assert len(index) == len(model)
    for key, vector in model.items():
        assert index.search(vector, 1)[0][1] == pytest.approx(1.0, abs=1e-5)
        assert key in index


def test_hnsw_recall_against_exact_on_clustered_data() -> None:
    rng = np.random.default_rng(1)
    centers = rng.normal(size=(20, DIM))
    data = l2_normalize(centers[rng.integers(0, 20, 3000)] + 0.3 * rng.normal(size=(3000, DIM)))
    keys = [str(i) for i in range(len(data))]
    exact, hnsw = ExactVectorIndex(DIM), HnswVectorIndex(DIM)
    exact.upsert(keys, data)
    hnsw.upsert(keys, data)
    queries = l2_normalize(data[:100] + 0.05 * rng.normal(size=(100, DIM)))
    found = sum(len({k for k, _ in exact.search(q, 5)} & {k for k, _ in hnsw.search(q, 5)}) for q in queries)
    assert found / 500 >= 0.95


def test_partitions_keep_tenants_and_domains_apart_and_promote_to_hnsw() -> None:
    index = PartitionedIndex(DIM, exact_max_size=20, hnsw_factory=lambda d: HnswVectorIndex(d))
    data = vectors(40)
    index.upsert("t1", "home", [f"h{i}" for i in range(30)], data[:30])
    index.upsert("t1", "mail", ["m0"], data[30:31])
    index.upsert("t2", "home", ["x"], data[0:1])
    assert index.partition_kinds() == {"HnswVectorIndex": 1, "ExactVectorIndex": 2}
    assert [key for _, key, _ in index.search("t1", data[30], 1, domain="home")] != ["m0"]
    assert index.search("t1", data[30], 1)[0][:2] == ("mail", "m0")
    assert index.search("t3", data[0], 5) == []
    assert all(tenant_key != "x" for _, tenant_key, _ in index.search("t1", data[0], 40))
    assert index.remove("t1", "home", "h3") and len(index) == 31


def test_without_faiss_a_partition_stays_exact_past_its_size_and_finds_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """faiss is the ``faiss`` extra: without it nothing is promoted to HNSW, and a search over the
    grown partition is the exact one."""
    monkeypatch.setattr("phronesis.storage.partitioned_index.faiss_installed", lambda: False)
    index, exact = PartitionedIndex(DIM, exact_max_size=20), ExactVectorIndex(DIM)
    data, keys = vectors(60), [f"h{i}" for i in range(60)]
    index.upsert("t1", "home", keys[:30], data[:30])
    index.upsert("t1", "home", keys[30:], data[30:])
    exact.upsert(keys, data)
    assert index.partition_kinds() == {"ExactVectorIndex": 1}
    for query in data[:10]:
        assert [(key, score) for _, key, score in index.search("t1", query, 5)] == exact.search(query, 5)


def test_an_hnsw_partition_cannot_be_restored_without_faiss_and_says_why() -> None:
    index = PartitionedIndex(DIM, hnsw_factory=None)
    missing = r"HNSW graph and faiss-cpu is not installed \(pip install 'phronesis\[faiss\]'\)"
    with pytest.raises(ValueError, match=missing):
        index.restore_partition("t1", "home", True, ["k"], io.BytesIO(b"").read)


def test_hnsw_tombstones_are_never_returned_and_compaction_keeps_the_live_set() -> None:
    index = HnswVectorIndex(DIM, compact_ratio=0.5, compact_min=10)
    data = vectors(100)
    keys = [f"k{i}" for i in range(100)]
    index.upsert(keys, data)
    for i in range(40):
        index.remove(f"k{i}")
    assert len(index) == 60
    hits = index.search(data[5], 10)
    assert len(hits) == 10 and all(int(key[1:]) >= 40 for key, _ in hits)
    for i in range(40, 70):  # pushes tombstones past half the slots: the graph is rebuilt
        index.remove(f"k{i}")
    assert len(index) == 30
    assert len(index._slots) < 100  # rebuilt: the slots of the first 40+ removals are gone
    assert len(index._slots) == len(index) + index._tombstones
    assert index.search(data[80], 1)[0] == ("k80", pytest.approx(1.0, abs=1e-5))
    assert {key for key, _ in index.items()} == {f"k{i}" for i in range(70, 100)}


def test_a_key_repeated_in_one_upsert_keeps_the_last_vector(index: VectorIndex) -> None:
    data = vectors(3)
    index.upsert(["a", "a", "b"], data)
    assert len(index) == 2
    assert index.search(data[1], 1)[0][0] == "a"
    assert index.search(data[0], 2)[0][0] != "a" or index.search(data[0], 2)[0][1] < 0.999


def test_search_breadth_is_retuned_in_place_and_more_breadth_never_loses_recall() -> None:
    rng = np.random.default_rng(2)
    data = l2_normalize(rng.normal(size=(4000, DIM)))
    keys = [str(i) for i in range(len(data))]
    exact = ExactVectorIndex(DIM)
    exact.upsert(keys, data)
    index = PartitionedIndex(DIM, exact_max_size=100, hnsw_factory=lambda d: HnswVectorIndex(d, connectivity=4))
    index.upsert("t", "d", keys, data)
    queries = l2_normalize(rng.normal(size=(100, DIM)))

    def recall() -> float:
        found = sum(
            len({k for k, _ in exact.search(q, 10)} & {k for _, k, _ in index.search("t", q, 10, domain="d")})
            for q in queries
        )
        return found / 1000

    index.set_expansion_search(10)
    narrow = recall()
    index.set_expansion_search(400)
    assert recall() >= narrow and recall() > 0.9
    with pytest.raises(ValueError, match="at least 1"):
        index.set_expansion_search(0)

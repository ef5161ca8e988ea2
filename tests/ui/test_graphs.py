"""``ui.graphs.run_graph``: runs tied by REPLACE and MERGE become rows of nodes and arrows."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from phronesis.ui.graphs import RunNode, run_graph

T0 = datetime(2026, 11, 26, tzinfo=UTC)


def run(i: int, *, superseded_by: str | None = None, group: str | None = None, canonical: bool = True) -> RunNode:
    status = "superseded" if superseded_by else "active"
    return RunNode(f"r{i}", f"task {i}", status, superseded_by, group, canonical, T0 + timedelta(minutes=i))


def test_a_chain_of_replacements_reads_left_to_right_and_groups_take_rows() -> None:
    runs = [
        run(1, superseded_by="r2"),
        run(2, superseded_by="r3"),
        run(3),
        run(4, group="g", canonical=False),
        run(5, group="g"),
        run(6),  # alone: a row of its own, no edge
    ]
    graph = run_graph(runs)
    assert graph.groups == 3
    edges = {(e.source, e.target, e.kind) for e in graph.edges}
    assert edges == {("r1", "r2", "replaced"), ("r2", "r3", "replaced"), ("r4", "r5", "merged")}
    at = {n.run.id: (n.x, n.y) for n in graph.nodes}
    assert at["r1"][1] == at["r2"][1] == at["r3"][1] and at["r1"][0] < at["r2"][0] < at["r3"][0]
    assert at["r4"][1] == at["r5"][1] != at["r1"][1] and at["r6"][1] not in (at["r1"][1], at["r4"][1])
    # every node inside the drawing; every arrow from one node's side to the other's
    assert all(n.x >= 0 and n.x + n.width <= graph.width and n.y + n.height <= graph.height for n in graph.nodes)
    for e in graph.edges:
        assert e.x1 <= e.x2


def test_an_edge_to_a_run_not_drawn_is_left_out() -> None:
    graph = run_graph([run(1, superseded_by="elsewhere"), run(2, group="g", canonical=False)])
    assert graph.edges == [] and graph.groups == 2

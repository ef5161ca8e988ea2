"""Runs and how admission tied them together, laid out for an SVG the template draws.

Nodes are runs; an edge is "replaced by" (a REPLACE: the old run superseded by the new) or
"merged into" (a MERGE: a member of a group pointing at its canonical run). Each connected
group of runs is one row, oldest first, so a chain of replacements reads left to right.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

__all__ = ["GraphEdge", "GraphNode", "RunGraph", "RunNode", "run_graph"]

NODE_W, NODE_H, GAP_X, ROW_H, PAD = 150, 40, 60, 70, 10
EdgeKind = Literal["replaced", "merged"]


@dataclass(frozen=True, slots=True)
class RunNode:
    """A run as the graph needs it (``ui.queries.DashboardQueries.run_nodes``)."""

    id: str
    task: str
    status: str
    superseded_by: str | None
    merge_group: str | None
    canonical: bool
    created_at: datetime


@dataclass(frozen=True, slots=True)
class GraphNode:
    run: RunNode
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True, slots=True)
class GraphEdge:
    source: str
    target: str
    kind: EdgeKind
    x1: float
    y1: float
    x2: float
    y2: float


@dataclass(frozen=True, slots=True)
class RunGraph:
    width: float
    height: float
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    groups: int


def _edges(runs: Sequence[RunNode]) -> list[tuple[str, str, EdgeKind]]:
    known = {run.id for run in runs}
    out: list[tuple[str, str, EdgeKind]] = []
    canonical = {run.merge_group: run.id for run in runs if run.merge_group and run.canonical}
    for run in runs:
        if run.superseded_by in known:
            out.append((run.id, run.superseded_by, "replaced"))
        head = canonical.get(run.merge_group) if run.merge_group else None
        if head is not None and head != run.id:
            out.append((run.id, head, "merged"))
    return out


def run_graph(runs: Sequence[RunNode]) -> RunGraph:
    """Rows of connected runs (union-find over the edges), oldest group first."""
    edges = _edges(runs)
    parent = {run.id: run.id for run in runs}

    def root(node: str) -> str:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for a, b, _ in edges:
        parent[root(a)] = root(b)
    groups: dict[str, list[RunNode]] = {}
    for run in sorted(runs, key=lambda r: (r.created_at, r.id)):
        groups.setdefault(root(run.id), []).append(run)
    nodes: dict[str, GraphNode] = {}
    widest = 0
    for row, members in enumerate(groups.values()):
        widest = max(widest, len(members))
        for column, run in enumerate(members):
            nodes[run.id] = GraphNode(run, PAD + column * (NODE_W + GAP_X), PAD + row * ROW_H, NODE_W, NODE_H)
    drawn = []
    for a, b, kind in edges:
        start, end = nodes[a], nodes[b]
        # from the side facing the other node, at mid-height (same row: left to right or back)
        forward = end.x >= start.x
        x1 = start.x + (start.width if forward else 0)
        x2 = end.x + (0 if forward else end.width)
        drawn.append(GraphEdge(a, b, kind, x1, start.y + NODE_H / 2, x2, end.y + NODE_H / 2))
    width = PAD * 2 + max(widest, 1) * (NODE_W + GAP_X) - GAP_X
    height = PAD * 2 + max(len(groups), 1) * ROW_H - (ROW_H - NODE_H)
    return RunGraph(width, height, list(nodes.values()), drawn, len(groups))

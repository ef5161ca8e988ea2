"""The run knowledge base as a graph: Cypher for Neo4j (the seed's store) or GraphML for any tool.

Nodes: Task, Run, Reference, Artifact, MemoryDecision. Edges: (Run)-[:FOR_TASK]->(Task),
(Run)-[:USED]->(Reference), (Run)-[:PRODUCED]->(Artifact), (Run)-[:SUPERSEDED_BY]->(Run),
(Run)-[:MERGED_INTO]->(canonical Run), (MemoryDecision)-[:ABOUT]->(Run) for stored runs
and (MemoryDecision)-[:TARGET]->(Run). Written as a stream, a page of rows at a time: a
first pass over the runs writes every node, a second their edges (Cypher needs both ends
to exist), so only ids and distinct values are held, never the runs or their edges.
Embeddings are not exported.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Protocol
from xml.sax.saxutils import escape, quoteattr

from phronesis.admission.memory_decisions import MemoryDecisionRepository
from phronesis.admission.models import MemoryDecision, Run
from phronesis.admission.run_repository import RunRepository

__all__ = ["ExportFormat", "GraphWriter", "export_graph"]

_XML_INVALID = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""What XML 1.0 cannot hold, even escaped (a control character in a run's summary): written as
U+FFFD in GraphML, so the file stays readable by networkx, Gephi and yEd."""


def _xml_text(text: str) -> str:
    return _XML_INVALID.sub("\ufffd", text)


ExportFormat = Literal["cypher", "graphml"]
PAGE = 2000


class TextSink(Protocol):
    def write(self, text: str, /) -> Any: ...


@dataclass(frozen=True, slots=True)
class _Node:
    id: str
    label: str
    properties: dict[str, Any]


@dataclass(frozen=True, slots=True)
class _Edge:
    source: str
    target: str
    label: str


def _cypher_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, datetime):
        return f"datetime({_cypher_value(value.isoformat())})"
    if not isinstance(value, str):
        value = json.dumps(value, sort_keys=True, default=str)
    # Cypher single-quoted string: backslash escapes, as Neo4j's parser reads them
    escaped = value.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "\\r")
    return f"'{escaped}'"


_LABELS = {"task": "Task", "run": "Run", "ref": "Reference", "artifact": "Artifact", "decision": "MemoryDecision"}
"""Node label by uid prefix."""


class GraphWriter(Protocol):
    def begin(self) -> None: ...
    def nodes(self, nodes: Iterable[_Node]) -> None: ...
    def edges(self, edges: Iterable[_Edge]) -> None: ...
    def end(self) -> None: ...


class CypherWriter:
    """One ``MERGE`` per node and per edge, keyed by ``uid``: re-running the file is idempotent."""

    def __init__(self, out: TextSink) -> None:
        self._out = out

    def begin(self) -> None:
        self._out.write("// phronesis admission graph (seed 003); load with cypher-shell -f\n")
        for label in ("Task", "Run", "Reference", "Artifact", "MemoryDecision"):
            self._out.write(f"CREATE CONSTRAINT IF NOT EXISTS FOR (n:{label}) REQUIRE n.uid IS UNIQUE;\n")

    def nodes(self, nodes: Iterable[_Node]) -> None:
        for node in nodes:
            props = ", ".join(f"n.{k} = {_cypher_value(v)}" for k, v in node.properties.items())
            line = f"MERGE (n:{node.label} {{uid: {_cypher_value(node.id)}}})"
            self._out.write(line + (f" SET {props}" if props else "") + ";\n")

    @staticmethod
    def _match(var: str, uid: str) -> str:
        # the label lets Neo4j use the uid constraint's index instead of scanning every node
        return f"({var}:{_LABELS[uid.split(':', 1)[0]]} {{uid: {_cypher_value(uid)}}})"

    def edges(self, edges: Iterable[_Edge]) -> None:
        for edge in edges:
            self._out.write(
                f"MATCH {self._match('a', edge.source)}, {self._match('b', edge.target)} "
                f"MERGE (a)-[:{edge.label}]->(b);\n"
            )

    def end(self) -> None:
        pass


_GRAPHML_KEYS = {
    "label": "string",
    "text": "string",
    "task": "string",
    "summary": "string",
    "outcome": "string",
    "status": "string",
    "agent_id": "string",
    "user_id": "string",
    "superseded_by": "string",
    "superseded_at": "string",
    "merge_group": "string",
    "canonical": "boolean",
    "usage_count": "int",
    "duplicate_count": "int",
    "created_at": "string",
    "value": "string",
    "run_id": "string",
    "decision": "string",
    "target_run_id": "string",
    "reason": "string",
    "similarity": "double",
    "stage": "string",
    "rule": "string",
}


class GraphMLWriter:
    """GraphML (networkx, Gephi, yEd, Neo4j's apoc.import.graphml); node ``label`` carries the kind."""

    def __init__(self, out: TextSink) -> None:
        self._out = out
        self._edge = 0

    def begin(self) -> None:
        self._out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        self._out.write('<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n')
        for key, kind in _GRAPHML_KEYS.items():
            self._out.write(f'  <key id="{key}" for="node" attr.name="{key}" attr.type="{kind}"/>\n')
        self._out.write('  <key id="edge_label" for="edge" attr.name="label" attr.type="string"/>\n')
        self._out.write('  <graph id="phronesis" edgedefault="directed">\n')

    @staticmethod
    def _data(key: str, value: Any) -> str:
        if value is None:
            return ""
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, datetime):
            text = value.isoformat()
        else:
            text = str(value)
        return f'<data key="{key}">{escape(_xml_text(text))}</data>'

    def nodes(self, nodes: Iterable[_Node]) -> None:
        for node in nodes:
            data = self._data("label", node.label) + "".join(
                self._data(k, v) for k, v in node.properties.items() if k in _GRAPHML_KEYS
            )
            self._out.write(f"    <node id={quoteattr(_xml_text(node.id))}>{data}</node>\n")

    def edges(self, edges: Iterable[_Edge]) -> None:
        for edge in edges:
            self._edge += 1
            source, target = quoteattr(_xml_text(edge.source)), quoteattr(_xml_text(edge.target))
            self._out.write(
                f'    <edge id="e{self._edge}" source={source} target={target}>'
                f"{self._data('edge_label', edge.label)}</edge>\n"
            )

    def end(self) -> None:
        self._out.write("  </graph>\n</graphml>\n")


def _run_nodes(runs: list[Run], tasks: set[str], values: dict[str, set[str]]) -> list[_Node]:
    """The page's Run nodes, plus the Task, Reference and Artifact nodes not written yet."""
    nodes: list[_Node] = []
    for run in runs:
        if run.task_id not in tasks:
            tasks.add(run.task_id)
            nodes.append(_Node(f"task:{run.task_id}", "Task", {"text": run.task}))
        nodes.append(
            _Node(
                f"run:{run.id}",
                "Run",
                {
                    "id": run.id,
                    "agent_id": run.agent_id,
                    "user_id": run.user_id,
                    "task": run.task,
                    "summary": run.summary,
                    "outcome": run.outcome,
                    "status": run.status,
                    "superseded_by": run.superseded_by,
                    "superseded_at": run.superseded_at,
                    "merge_group": run.merge_group,
                    "canonical": run.canonical,
                    "usage_count": run.usage_count,
                    "duplicate_count": run.duplicate_count,
                    "created_at": run.created_at,
                },
            )
        )
        for kind, label, items in (("ref", "Reference", run.references), ("artifact", "Artifact", run.artifacts)):
            for value in items:
                if value not in values[kind]:
                    values[kind].add(value)
                    nodes.append(_Node(f"{kind}:{value}", label, {"value": value}))
    return nodes


def _run_edges(runs: list[Run], canonical_of: dict[str, str]) -> list[_Edge]:
    edges: list[_Edge] = []
    for run in runs:
        rid = f"run:{run.id}"
        edges.append(_Edge(rid, f"task:{run.task_id}", "FOR_TASK"))
        edges += [_Edge(rid, f"ref:{value}", "USED") for value in run.references]
        edges += [_Edge(rid, f"artifact:{value}", "PRODUCED") for value in run.artifacts]
        if run.superseded_by:
            edges.append(_Edge(rid, f"run:{run.superseded_by}", "SUPERSEDED_BY"))
        canonical = canonical_of.get(run.merge_group or "")
        if canonical is not None and canonical != run.id:
            edges.append(_Edge(rid, f"run:{canonical}", "MERGED_INTO"))
    return edges


def _decision_graph(decisions: list[MemoryDecision], stored: set[str]) -> tuple[list[_Node], list[_Edge]]:
    nodes, edges = [], []
    for d in decisions:
        did = f"decision:{d.id}"
        nodes.append(
            _Node(
                did,
                "MemoryDecision",
                {
                    "id": d.id,
                    "run_id": d.run_id,
                    "decision": d.decision,
                    "target_run_id": d.target_run_id,
                    "reason": d.reason,
                    "similarity": d.similarity,
                    "stage": d.stage,
                    "rule": d.rule,
                    "created_at": d.created_at,
                },
            )
        )
        if d.run_id in stored:
            edges.append(_Edge(did, f"run:{d.run_id}", "ABOUT"))
        if d.target_run_id and d.target_run_id in stored:
            edges.append(_Edge(did, f"run:{d.target_run_id}", "TARGET"))
    return nodes, edges


async def export_graph(
    runs: RunRepository, decisions: MemoryDecisionRepository, tenant: str, out: TextSink, fmt: ExportFormat
) -> dict[str, int]:
    """Write the tenant's graph to ``out``; returns how many nodes of each kind were written."""
    writer: GraphWriter = CypherWriter(out) if fmt == "cypher" else GraphMLWriter(out)
    writer.begin()
    tasks: set[str] = set()
    values: dict[str, set[str]] = {"ref": set(), "artifact": set()}
    stored: set[str] = set()
    canonical_of: dict[str, str] = {}
    counts = {"runs": 0, "tasks": 0, "references": 0, "artifacts": 0, "decisions": 0}
    async for page in runs.iterate(tenant, batch_size=PAGE):
        writer.nodes(_run_nodes(page, tasks, values))
        stored.update(run.id for run in page)
        canonical_of.update((run.merge_group, run.id) for run in page if run.merge_group and run.canonical)
        counts["runs"] += len(page)
    async for page in runs.iterate(tenant, batch_size=PAGE):  # every run node exists now
        writer.edges(_run_edges(page, canonical_of))
    async for batch in decisions.iterate(tenant):
        nodes, edges = _decision_graph(batch, stored)
        writer.nodes(nodes)
        writer.edges(edges)
        counts["decisions"] += len(batch)
    counts.update(tasks=len(tasks), references=len(values["ref"]), artifacts=len(values["artifact"]))
    writer.end()
    return counts

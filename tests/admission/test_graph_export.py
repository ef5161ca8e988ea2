"""The knowledge base as a graph: GraphML any tool reads, Cypher with safe literals."""

from __future__ import annotations

import io

import networkx as nx

from phronesis.engine import Engine


async def populate(engine: Engine) -> dict[str, str]:
    failed = await engine.admit_run("Generate schema", outcome="failure", references=["orders.csv"], summary="S")
    better = await engine.admit_run(
        "Generate schema", outcome="success", references=["orders.csv"], artifacts=["schema.sql"], summary="S"
    )
    a = await engine.admit_run("Summarise 'Q3' \\ report\nfast", outcome="success", references=["A"], summary="Q3")
    b = await engine.admit_run("Summarise 'Q3' \\ report\nfast", outcome="success", references=["B"], summary="Q3")
    await engine.admit_run(
        "Generate schema", outcome="success", references=["orders.csv"], artifacts=["schema.sql"], summary="S"
    )
    return {"failed": failed.run_id, "better": better.run_id, "a": a.run_id, "b": b.run_id}


async def test_graphml_loads_in_networkx_with_every_node_and_edge(sqlite_engine: Engine) -> None:
    ids = await populate(sqlite_engine)
    out = io.StringIO()
    counts = await sqlite_engine.admission.export("default", out, "graphml")
    assert counts == {"runs": 4, "tasks": 2, "references": 3, "artifacts": 1, "decisions": 5}
    graph = nx.read_graphml(io.StringIO(out.getvalue()))
    labels = [data["label"] for _, data in graph.nodes(data=True)]
    assert {label: labels.count(label) for label in set(labels)} == {
        "Run": 4,
        "Task": 2,
        "Reference": 3,
        "Artifact": 1,
        "MemoryDecision": 5,
    }
    edge = {(u, v): d["label"] for u, v, d in graph.edges(data=True)}
    assert edge[(f"run:{ids['failed']}", f"run:{ids['better']}")] == "SUPERSEDED_BY"
    assert graph.nodes[f"run:{ids['failed']}"]["status"] == "superseded"
    assert edge[(f"run:{ids['a']}", f"run:{ids['b']}")] == "MERGED_INTO"  # into the canonical (newer) run
    assert edge[(f"run:{ids['better']}", "artifact:schema.sql")] == "PRODUCED"
    assert graph.nodes[f"run:{ids['a']}"]["task"] == "Summarise 'Q3' \\ report\nfast"


async def test_cypher_escapes_every_string_and_merges_by_uid(sqlite_engine: Engine) -> None:
    await populate(sqlite_engine)
    out = io.StringIO()
    await sqlite_engine.admission.export("default", out, "cypher")
    lines = out.getvalue().splitlines()
    statements = [line for line in lines if not line.startswith("//")]
    assert all(line.endswith(";") for line in statements)  # one statement per line: no raw newline leaked
    assert any("Summarise \\'Q3\\' \\\\ report\\nfast" in line for line in statements)
    assert sum(line.startswith("MERGE (n:Run ") for line in statements) == 4
    assert sum(line.startswith("MERGE (n:MemoryDecision ") for line in statements) == 5
    assert any("-[:SUPERSEDED_BY]->" in line for line in statements)
    assert all("MATCH (a:" in line for line in statements if line.startswith("MATCH"))


async def test_graphml_holds_text_xml_cannot(sqlite_engine: Engine) -> None:
    """A control character in a task or reference (a terminal's escape code, a NUL from a log)
    is written as U+FFFD: the file stays XML that networkx reads."""
    run = await sqlite_engine.admit_run(
        "Tail the log \x1b[31mred\x1b[0m", outcome="success", references=["log\x00.txt"], summary="Tailed \x07 it"
    )
    out = io.StringIO()
    await sqlite_engine.admission.export("default", out, "graphml")
    graph = nx.read_graphml(io.StringIO(out.getvalue()))
    assert graph.nodes[f"run:{run.run_id}"]["task"] == "Tail the log \ufffd[31mred\ufffd[0m"
    assert "ref:log\ufffd.txt" in graph.nodes

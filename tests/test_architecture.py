"""The package structure holds: no import cycles, between packages or between modules.

A cycle is read from the source (every ``import``, at the top of a module or inside a function,
except under ``TYPE_CHECKING``), so an import moved into a function to dodge a cycle still counts:
it is the same dependency, paid later. Packages are ``phronesis``'s direct children (a module such
as ``phronesis.engine`` is one by itself); migrations are frozen copies and are left out."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

SOURCE = Path(__file__).parents[1] / "src"
ROOT = SOURCE / "phronesis"


def _name(path: Path) -> str:
    parts = list(path.relative_to(SOURCE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(path): path for path in ROOT.rglob("*.py") if "migrations" not in path.parts}


def _resolved(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imported(module: str, path: Path) -> Iterator[str]:
    """What ``module`` imports from phronesis, outside ``if TYPE_CHECKING:`` blocks."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]

    def visit(node: ast.AST) -> Iterator[str]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                yield from (name for orelse in child.orelse for name in visit(orelse))
                continue
            if isinstance(child, ast.Import):
                yield from (alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    base = ".".join(package[: len(package) - child.level + 1] + ([base] if base else []))
                submodules = [f"{base}.{alias.name}" for alias in child.names if f"{base}.{alias.name}" in MODULES]
                # ``from package import module`` depends on the module (and its package's
                # ``__init__``, which every submodule's import runs anyway), not on what else it holds
                yield from submodules if len(submodules) == len(child.names) else [base]
            yield from visit(child)

    for name in visit(ast.parse(path.read_text(), str(path))):
        resolved = _resolved(name) if name.startswith("phronesis") else None
        if resolved is not None and resolved != module:
            yield resolved


GRAPH = {module: set(_imported(module, path)) for module, path in MODULES.items()}


def _package(module: str) -> str:
    return ".".join(module.split(".")[:2])


def _cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph.get(step, ())))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _packages() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {_package(module): set() for module in MODULES}
    for module, imports in GRAPH.items():
        graph[_package(module)] |= {_package(other) for other in imports if _package(other) != _package(module)}
    graph["phronesis"] = set()  # the root's lazy ``__init__``: every import of a package runs it
    return graph


def test_the_reader_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_package_imports_another_that_imports_it_back() -> None:
    assert _cycles(_packages()) == []


def test_no_module_imports_another_that_imports_it_back() -> None:
    assert _cycles(GRAPH) == []


MIGRATIONS = ROOT / "storage" / "migrations" / "versions"
FROZEN = {"phronesis.storage.migrations.frozen", "phronesis.storage.types"}
"""What a migration may import of phronesis: its frozen copies, and the column types (a stored
value's format, which no revision may change without a migration of its own)."""


def test_migrations_import_no_application_code() -> None:
    for path in sorted(MIGRATIONS.glob("*.py")):
        imported = {
            node.module
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("phronesis")
        } | {
            alias.name
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Import)
            for alias in node.names
            if alias.name.startswith("phronesis")
        }
        assert imported <= FROZEN, (path.name, imported - FROZEN)


def test_no_history_in_the_source() -> None:
    """The source says why the code is as it is; what happened when (an issue number, the order the
    code was written in) is in ``CHANGELOG.md``."""
    import re

    history = re.compile(r"\b[Ii]ssues? \d+\b")
    found = [
        f"{path.relative_to(SOURCE.parent)}:{number}: {line.strip()}"
        for path in sorted(ROOT.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
        for number, line in enumerate(path.read_text(errors="ignore").splitlines(), 1)
        if history.search(line)
    ]
    assert not found, "issue numbers in the source (move them to CHANGELOG.md):\n" + "\n".join(found)


ADAPTERS = ("api", "cli", "mcp", "ui", "gladys", "processes", "server.py")
"""The packages that put the engine behind a surface: HTTP, the command line, MCP, the dashboard,
GLADyS's gRPC wire, the long-running processes."""


def _api_objects() -> dict[str, type]:
    """``Engine``'s public objects: one per decision point, heuristic memory, the decision records,
    the tenants' settings and quotas. An adapter calls their methods, never their parts."""
    from phronesis.admission.module import AdmissionModule
    from phronesis.audit.repository import DecisionRecordRepository
    from phronesis.executive.service import ExecutiveService
    from phronesis.heuristics.memory import HeuristicMemory
    from phronesis.learning.flight_recorder import FlightRecorder
    from phronesis.learning.module import LearningModule
    from phronesis.proactive.module import ProactiveModule
    from phronesis.quotas import TenantQuotas
    from phronesis.routing.module import RoutingModule
    from phronesis.tenant_settings import TenantSettings

    return {
        "executive": ExecutiveService,
        "learning": LearningModule,
        "flight_recorder": FlightRecorder,
        "routing": RoutingModule,
        "admission": AdmissionModule,
        "proactive": ProactiveModule,
        "heuristics": HeuristicMemory,
        "decisions": DecisionRecordRepository,
        "tenant_settings": TenantSettings,
        "quotas": TenantQuotas,
    }


def _reaches(api: Mapping[str, type], path: Path) -> Iterator[str]:
    """``engine.<object>.<part>`` where ``<part>`` is not a method (or property) of the object's class."""
    import inspect

    for node in ast.walk(ast.parse(path.read_text())):
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)):
            continue
        root = node.value.value
        if not (isinstance(root, ast.Name) and ("engine" in root.id.lower() or root.id == "e")):
            continue
        owner = api.get(node.value.attr)
        if owner is None:
            continue
        member = inspect.getattr_static(owner, node.attr, None)
        if not (inspect.isfunction(member) or isinstance(member, property)):
            yield f"{path.relative_to(SOURCE)}:{node.lineno}: {root.id}.{node.value.attr}.{node.attr}"


def test_adapters_use_each_objects_methods_not_its_parts() -> None:
    api = _api_objects()
    files = [ROOT / name for name in ADAPTERS if name.endswith(".py")] + [
        path for name in ADAPTERS if not name.endswith(".py") for path in (ROOT / name).rglob("*.py")
    ]
    reached = [reach for path in sorted(files) for reach in _reaches(api, path)]
    assert reached == [], "\n".join(reached)


SETS_A_LIBRARYS_PARTS = {"storage/hnsw_index.py"}
"""faiss's HNSW takes its search breadth as attributes of its graph (``index.hnsw.efSearch``)."""


def _parts_set(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Assignments to an attribute of an object's part (``a.b.c = …``, ``self.b.c = …``)."""
    for node in ast.walk(tree):
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AugAssign | ast.AnnAssign)
            else []
        )
        for target in targets:
            part = target.value if isinstance(target, ast.Attribute) else None
            # Starlette's ``app.state`` and ``request.state`` are bags for exactly this
            if isinstance(part, ast.Attribute) and part.attr != "state":
                yield node.lineno, ast.unparse(target)


def test_no_object_sets_the_parts_of_another() -> None:
    """Each object is whole once built: nothing reaches into another's parts to change them (the
    engine once set each store's pgvector column and swapped its index at start; the stores now
    ask the engine's one ``VectorBackend``, settled at start)."""
    found = [
        f"{path.relative_to(ROOT)}:{line}: {target}"
        for path in sorted(ROOT.rglob("*.py"))
        if str(path.relative_to(ROOT)) not in SETS_A_LIBRARYS_PARTS
        for line, target in _parts_set(ast.parse(path.read_text()))
    ]
    assert found == []


def test_the_engine_and_the_points_use_each_objects_methods_not_its_parts() -> None:
    """Inside the engine too: what one point is given of another (``parts.heuristics``) and what the
    engine calls on its objects are methods, never their stores (the executive wrote fires and
    endorsements through ``heuristics.repository``; it is given the store it writes to)."""
    import inspect

    api, reached = _api_objects(), []
    for path in sorted(ROOT.rglob("*.py")):
        in_engine = path == ROOT / "engine.py"
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)):
                continue
            owner, root = api.get(node.value.attr), ast.unparse(node.value.value)
            holder = root.split(".")[-1] in ("engine", "parts", "_p") or (in_engine and root == "self")
            if owner is None or not holder:
                continue
            member = inspect.getattr_static(owner, node.attr, None)
            if not (inspect.isfunction(member) or isinstance(member, property)):
                reached.append(f"{path.relative_to(SOURCE)}:{node.lineno}: {root}.{node.value.attr}.{node.attr}")
    assert reached == [], "\n".join(reached)

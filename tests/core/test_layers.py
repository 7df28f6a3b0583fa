"""The layers of ``.importlinter`` hold where import-linter cannot look, and packages form no cycle.

``lint-imports`` (``make lint``, ``make test``) checks the contracts over ``memory_engine`` and
``pages``. These tests add what it cannot: ``app.py`` is a single module, not a package, so it
is held to the pages' contract here with ``ast``; every package of ``memory_engine`` must be
placed in a layer (a new package cannot slip past the contract); and no two packages of
``memory_engine`` import each other, directly or through others (docs/architecture.md#layers).
"""

from __future__ import annotations

import ast
import configparser
from collections import defaultdict
from pathlib import Path

import grimp

REPO = Path(__file__).resolve().parents[2]
CONTRACT = REPO / ".importlinter"


def _contract(name: str) -> configparser.SectionProxy:
    config = configparser.ConfigParser(inline_comment_prefixes=(";",))
    config.read(CONTRACT, encoding="utf-8")
    return config[f"importlinter:contract:{name}"]


def _lines(value: str) -> list[str]:
    return [line.strip() for line in value.splitlines() if line.strip()]


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every absolute import of ``path``, ``from a import b`` as ``a.b`` too."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return found


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_app_py_imports_what_pages_may_import() -> None:
    """app.py obeys the ``pages`` contract (a store, a service's internals, another frontend:
    never)."""
    section = _contract("pages")
    forbidden = _lines(section["forbidden_modules"])
    bad = [
        f"app.py:{line} imports {module}"
        for line, module in _imports(REPO / "app.py")
        if any(_within(module, f) for f in forbidden)
    ]
    assert bad == []


def test_the_ast_check_sees_what_lint_imports_sees_in_pages() -> None:
    """The same rule over pages/*.py finds exactly the contract's ignored imports (so the ast
    reading of app.py above is as strict as import-linter)."""
    section = _contract("pages")
    forbidden = _lines(section["forbidden_modules"])
    ignored = {tuple(s.strip() for s in x.split("->")) for x in _lines(section["ignore_imports"])}
    found = set()
    for page in sorted((REPO / "pages").glob("*.py")):
        for _line, module in _imports(page):
            if any(_within(module, f) for f in forbidden):
                found.add((f"pages.{page.stem}", module))
    assert ignored <= found  # every ignore names an import that exists (none left stale)


def test_every_package_is_placed_in_a_layer() -> None:
    """Each module or package directly under memory_engine/ is named by the layers contract."""
    layered: set[str] = set()
    for layer in _lines(_contract("layers")["layers"]):
        layered |= {part.strip() for part in layer.replace("|", ":").split(":")}
    children = {
        f"memory_engine.{p.stem if p.suffix == '.py' else p.name}"
        for p in (REPO / "memory_engine").iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()
    }
    assert children - layered == set()


def _package_of(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2])


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
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


#: Cycles still to remove, one tuple of packages each (then delete its line here: the
#: test fails as well when a listed cycle is gone, so this list only shrinks).
PENDING_CYCLES: set[tuple[str, ...]] = set()


def test_no_import_cycle_between_packages() -> None:
    """The packages of memory_engine (``memory_engine.<x>``, a root module counting as its own)
    form no cycle other than the pending ones; each is reported with one import per step."""
    graph = grimp.build_graph(
        "memory_engine", cache_dir=None, exclude_type_checking_imports=True
    )  # type-only imports never run
    edges: dict[str, set[str]] = defaultdict(set)
    witness: dict[tuple[str, str], str] = {}
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            a, b = _package_of(module), _package_of(imported)
            if a != b:
                edges[a].add(b)
                witness.setdefault((a, b), f"{module} -> {imported}")
    found = {tuple(cycle): cycle for cycle in _cycles(edges)}
    report = []
    for key in sorted(set(found) - PENDING_CYCLES):
        cycle = found[key]
        steps = [witness[(a, b)] for a in cycle for b in cycle if (a, b) in witness]
        report.append(f"{' <-> '.join(cycle)}: {'; '.join(steps)}")
    assert report == [], "new import cycle between packages"
    assert PENDING_CYCLES - set(found) == set(), "fixed: delete it from PENDING_CYCLES"


def test_the_cycle_finder_finds_cycles() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e2"}, "e2": {"e"}}
    assert sorted(_cycles(edges)) == [["a", "b", "c"], ["e", "e2"]]

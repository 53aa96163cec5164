"""The host package's imports point one way (issue: the collector is the session's authority): no cycle between
its modules; the collector never imports the dashboard or the app factory above them both; the store never
imports the derivation. Read from the source (every import, at module level or in a function)."""
import ast
from pathlib import Path

import pytest

HOST = Path(__file__).resolve().parents[2] / "host_tools" / "bidwire_host"
PACKAGE = "bidwire_host"


def _module_name(path):
    rel = path.relative_to(HOST.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in HOST.rglob("*.py")}


def _resolve(name):
    """The host module an imported name is (a module, or the package whose attribute it is), or None."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports(module):
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        for name in names:
            if name.startswith(PACKAGE):
                target = _resolve(name)
                if target and target != module:
                    out.add(target)
    return out


GRAPH = {m: imports(m) for m in MODULES}


def test_the_graph_is_read():
    assert len(GRAPH) > 40
    assert "bidwire_host.collector.derive" in GRAPH["bidwire_host.collector.ingest"]


def test_no_import_cycle_in_the_host_package():
    state, stack, cycles = {}, [], []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for n in sorted(GRAPH[m]):
            if state.get(n) == "open":
                cycles.append(stack[stack.index(n):] + [n])
            elif n not in state:
                visit(n)
        stack.pop()
        state[m] = "done"

    for m in sorted(GRAPH):
        if m not in state:
            visit(m)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


@pytest.mark.parametrize("module", sorted(m for m in GRAPH if m.startswith("bidwire_host.collector")))
def test_the_collector_imports_neither_the_dashboard_nor_the_app(module):
    bad = {n for n in GRAPH[module] if n.startswith(("bidwire_host.dashboard", "bidwire_host.server"))}
    assert not bad, f"{module} imports {', '.join(sorted(bad))}"


def test_the_store_does_not_import_the_derivation():
    assert GRAPH["bidwire_host.collector.store"] <= {"bidwire_host", "bidwire_host.collector",
                                                     "bidwire_host.sql_migrations"}, \
        GRAPH["bidwire_host.collector.store"]


def test_only_the_cli_imports_the_app_factory():
    users = {m for m, deps in GRAPH.items() if "bidwire_host.server" in deps}
    assert users <= {"bidwire_host.cli", "bidwire_host.demo.club"}, users


def test_a_cycle_would_be_seen(monkeypatch):
    """The check itself: a made-up edge back from the store to the derivation is a cycle."""
    monkeypatch.setitem(GRAPH, "bidwire_host.collector.store",
                        GRAPH["bidwire_host.collector.store"] | {"bidwire_host.collector.derive"})
    with pytest.raises(AssertionError, match="import cycles"):
        test_no_import_cycle_in_the_host_package()

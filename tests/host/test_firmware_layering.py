"""The firmware's imports point one way (docs/architecture.md §2): core <- unit <- boards, with no cycle among the
modules of firmware/ and boards/, and nothing there importing the host. Read from the source: every import, at
module level or inside a function (a lazy import is still a dependency). Also micropython-lib's convention for a
constant another module owns: a module's private `_NAME = const(v)` copy of a public `NAME = const(v)` elsewhere
in the firmware holds the same value."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [p for p in sorted((ROOT / "firmware").rglob("*.py")) + sorted((ROOT / "boards").rglob("*.py"))
           if "manifest" not in p.parts[-1] and "manifests" not in p.parts and "sim" not in p.parts]


def _module_name(path):
    base = ROOT / ("firmware" if ROOT / "firmware" in path.parents else "")
    parts = list(path.relative_to(base).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in SOURCES}


def _resolve(name):
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports(module):
    path = MODULES[module]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            target = _resolve(name)
            if target and target != module and not module.startswith(target + "."):
                out.add(target)
            elif name.startswith("bidwire_host"):
                out.add("bidwire_host")
    return out


GRAPH = {m: imports(m) for m in MODULES}


def _cycles(graph):
    state, stack, found = {}, [], []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == "open":
                found.append(stack[stack.index(n):] + [n])
            elif n not in state and n in graph:
                visit(n)
        stack.pop()
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m)
    return found


def test_the_graph_is_read():
    assert len(GRAPH) > 30
    assert "bidwire.unit.director" in GRAPH["bidwire.unit.app"]  # a lazy import, inside a function
    assert "bidwire.unit.journal" in GRAPH["bidwire.unit.runner"]


def test_no_import_cycle_in_the_firmware():
    cycles = _cycles(GRAPH)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_a_cycle_would_be_seen():
    graph = dict(GRAPH, **{"bidwire.unit.director": GRAPH["bidwire.unit.director"] | {"bidwire.unit.app"}})
    assert _cycles(graph)


@pytest.mark.parametrize("module", sorted(m for m in GRAPH if m.startswith("bidwire.unit")))
def test_the_unit_imports_no_board(module):
    assert not {n for n in GRAPH[module] if n.startswith("boards")}, GRAPH[module]


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_nothing_on_a_unit_imports_the_host(module):
    assert "bidwire_host" not in GRAPH[module]


def _consts(path):
    """{name: value} of the module's `NAME = const(literal)` and `NAME = literal` assignments."""
    out = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        value = node.value
        if isinstance(value, ast.Call) and getattr(value.func, "id", "") == "const" and len(value.args) == 1:
            value = value.args[0]
        try:
            out[node.targets[0].id] = ast.literal_eval(value)
        except ValueError:
            pass  # an expression of other constants, or not a constant at all: not a copy
    return out


CONSTS = {m: _consts(p) for m, p in MODULES.items()}
PUBLIC = {}
for _m, _c in CONSTS.items():
    for _name, _value in _c.items():
        if not _name.startswith("_"):
            PUBLIC.setdefault(_name, []).append((_m, _value))


def test_the_constants_are_read():
    assert CONSTS["bidwire.core.codes"]["FULL"] == 12 and CONSTS["bidwire.unit.keys"]["K_TD"] == 17


@pytest.mark.parametrize("module", sorted(CONSTS))
def test_no_module_copies_a_constant_another_module_owns(module):
    """Each constant is written once, in the module that owns it, and read from there (`codes.FULL`): a private copy
    (`_FULL = const(12)`) folds to a number but is a second definition, free to drift from the first."""
    copies = []
    for name in CONSTS[module]:
        bare = name.lstrip("_")
        owners = [m for m, c in CONSTS.items()
                  if m != module and m.startswith("bidwire.") and (bare in c or "_" + bare in c)]
        if owners:
            copies.append(f"{module}.{name} (also in {', '.join(owners)})")
    assert copies == []


def _dropped(module):
    """The module names `module` hands to lazy.drop: a string literal, or one of its own constants."""
    out = []
    for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and len(node.args) == 1 and (
                getattr(node.func, "id", "") == "drop" or getattr(node.func, "attr", "") == "drop"):
            arg = node.args[0]
            if isinstance(arg, ast.Constant):
                out.append(arg.value)
            elif isinstance(arg, ast.Name) and arg.id in CONSTS[module]:
                out.append(CONSTS[module][arg.id])
            elif isinstance(arg, ast.Attribute) and arg.attr == "__name__" and isinstance(arg.value, ast.Name):
                out.append(_imported(module, arg.value.id))  # drop(replay.__name__): the module imported as that name
            else:
                out.append(ast.dump(arg))  # a name no test can check: it fails below
    return out


def _imported(module, name):
    """The module that `from package import name` (or `import x.y as name`) brings into `module`."""
    for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    return f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname == name:
                    return alias.name
    return f"<{name} not imported>"


DROPPED = {m: _dropped(m) for m in MODULES}


def test_the_dropped_modules_are_read():
    assert "bidwire.unit.director" in DROPPED["bidwire.unit.app"]  # a const
    assert "bidwire.core.record" in DROPPED["bidwire.unit.app"]  # a literal
    assert "bidwire.unit.config" in DROPPED["main"]
    assert "bidwire.unit.replay" in DROPPED["bidwire.unit.store"]  # drop(replay.__name__)


@pytest.mark.parametrize("module", sorted(m for m in DROPPED if DROPPED[m]))
def test_each_module_dropped_is_one_the_firmware_has(module):
    """lazy.drop of a name that is no module does nothing, silently: the module it meant stays in the heap."""
    assert [n for n in DROPPED[module] if n not in MODULES] == []

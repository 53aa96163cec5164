"""What runs at run time is a run-time dependency: every third-party module the host package imports (at module
level or in a function) comes from a distribution that `[project] dependencies` names, or from one of theirs."""
import ast
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
HOST = ROOT / "host_tools" / "bidwire_host"
FIRST_PARTY = {"bidwire", "bidwire_host"}


def _imported_top_levels():
    names = set()
    for path in HOST.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names.add(node.module.split(".")[0])
    return {n for n in names if n not in FIRST_PARTY and n not in sys.stdlib_module_names}


def _closure(requirements):
    """The distributions the requirements name, with everything they require in turn (as installed)."""
    seen, todo = set(), [Requirement(r).name.lower() for r in requirements]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            todo.extend(Requirement(r).name.lower() for r in metadata.requires(name) or ()
                        if "extra ==" not in r)
        except metadata.PackageNotFoundError:
            pass
    return {n.replace("_", "-") for n in seen}


def test_every_module_the_host_imports_is_a_declared_dependency():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    allowed = _closure(declared)
    providers = metadata.packages_distributions()
    imported = _imported_top_levels()
    assert {"fastapi", "endplay"} <= imported  # the scan reads the package
    missing = {}
    for name in sorted(imported):
        dists = {d.lower().replace("_", "-") for d in providers.get(name, ())}
        if not dists:
            pytest.fail(f"{name} is imported by the host but no installed distribution provides it")
        if not dists & allowed:
            missing[name] = sorted(dists)
    assert not missing, f"imported at run time but not in [project] dependencies: {missing}"

"""What runs at run time is a run-time dependency: every third-party module the host package imports (at module
level or in a function) comes from a distribution that `[project] dependencies` names, or from one of theirs, or,
for the parts that are extras (the hub, the uplink to a hub, make demo's clients), from that extra. A club's
collector runs without the extras."""
import ast
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
HOST = ROOT / "host_tools" / "bidwire_host"
FIRST_PARTY = {"bidwire", "bidwire_host"}


# The parts that are extras (pyproject.toml [project.optional-dependencies]), by path under bidwire_host/.
EXTRAS = {"hub/": {"hub"}, "collector/uplink.py": {"uplink"}, "demo/": {"uplink"}}


def _extras_of(path):
    rel = path.relative_to(HOST).as_posix()
    return set().union(*(extras for prefix, extras in EXTRAS.items() if rel.startswith(prefix)))


def _imported_top_levels():
    """{third-party top-level module: the extras of the files that import it (an empty set: a runtime file)}."""
    names = {}
    for path in HOST.rglob("*.py"):
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                found.add(node.module.split(".")[0])
        for name in found - FIRST_PARTY - set(sys.stdlib_module_names):
            extras = _extras_of(path)
            names[name] = extras if name not in names else names[name] & extras
    return names


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
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    providers = metadata.packages_distributions()
    imported = _imported_top_levels()
    assert {"fastapi", "endplay", "psycopg", "httpx2"} <= set(imported)  # the scan reads the package
    missing = {}
    for name, extras in sorted(imported.items()):
        allowed = _closure(project["dependencies"] + [r for e in extras for r in project["optional-dependencies"][e]])
        dists = {d.lower().replace("_", "-") for d in providers.get(name, ())}
        if not dists:
            pytest.fail(f"{name} is imported by the host but no installed distribution provides it")
        if not dists & allowed:
            missing[name] = (sorted(dists), sorted(extras) or "runtime")
    assert not missing, f"imported at run time but not in its dependencies: {missing}"


# What a club's collector never needs: the extras' modules, refused at import in the process below.
EXTRA_MODULES = ("psycopg", "psycopg_pool", "httpx2", "defusedxml")
WITHOUT_EXTRAS = f"""
import sys
class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {EXTRA_MODULES!r}:
            raise ImportError(name + " is an extra")
sys.meta_path.insert(0, Refuse())
import bidwire_host.cli, bidwire_host.server, bidwire_host.collector.service
from bidwire_host.collector import uplink
try:
    uplink.http_client()
except uplink.UplinkError as e:
    print(e)
"""


def test_a_clubs_collector_runs_without_the_extras():
    proc = subprocess.run([sys.executable, "-c", WITHOUT_EXTRAS], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "pip install 'bidwire[uplink]'" in proc.stdout, proc.stdout

"""docs/architecture.md §2: the core imports nothing but itself (no I/O, no machine/network, nothing of the host)."""
import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "firmware" / "bidwire" / "core"
ALLOWED = {"micropython"}  # the const() shim


def imports(path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            yield node.module or ""


def test_core_imports_only_the_core():
    files = sorted(CORE.glob("*.py"))
    assert len(files) >= 8
    for f in files:
        for name in imports(f):
            assert name.startswith("bidwire.core") or name in ALLOWED, f"{f.name} imports {name}"

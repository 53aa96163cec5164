"""Compile firmware sources to .mpy with mpy-cross: shared by `make compile`, the benchmark and deploy."""
import ast
import os
import subprocess
from pathlib import Path

import click

CORE = Path("bidwire/core")  # reported apart: the core's flash footprint is a budget of its own
# What goes on a unit (deploy.build, and the bench's .mpy builds, which measure it): -O3 leaves out the line-number
# tables, so a traceback names each file and function but gives every line as 1. About 7 % of the bytecode, which on
# stock firmware is loaded into the heap (docs/benchmarks.md). It also drops `assert` statements (the firmware has
# none): the tests compile without it (`--line-numbers`, make test-mp), or their asserts would vanish.
UNIT_FLAGS = ("-O3",)


class CompileError(Exception):
    """mpy-cross rejected a source file (or two sources would share one output); the message says which."""


def _unit_code(src):
    """Not a cache, nor a build manifest (firmware/manifest*.py, boards/manifests/): MicroPython's build reads
    those to freeze the firmware; they never run on a unit."""
    return "__pycache__" not in src.parts and "manifests" not in src.parts and not src.name.startswith("manifest")


def _namespace_init(src):
    """A package's __init__.py with nothing but its docstring (CPython needs the file; MicroPython does not, and
    drops docstrings). Left out, MicroPython imports the directory as a namespace package: the same package, without
    a module to load, nor the qstr of its file's path that the import would intern in the heap."""
    if src.name != "__init__.py":
        return False
    tree = ast.parse(src.read_text(encoding="utf-8"), str(src))
    return not tree.body or (len(tree.body) == 1 and ast.get_docstring(tree, clean=False) is not None)


def _sources(dirs, packages=()):
    for root in map(Path, dirs):
        for src in sorted(root.rglob("*.py")):
            if _unit_code(src) and not _namespace_init(src):
                yield root, src
    for pkg in map(Path, packages):  # a package dir keeps its name: boards/x.py -> out/boards/x.mpy
        for src in sorted(pkg.rglob("*.py")):
            if _unit_code(src) and not _namespace_init(src):
                yield pkg.parent, src


def _module_name(rel):
    """The source name a .mpy keeps for its tracebacks: the module's dotted name (bidwire/core/calls.py ->
    bidwire.core.calls, bidwire/core/__init__.py -> bidwire.core). The import system interns that name anyway, so
    on a unit it costs no qstr of its own, where the file's path would cost one per module in the heap (about 30
    qstrs and 900 B on stock firmware, docs/benchmarks.md)."""
    parts = rel.with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def compile_tree(mpy_cross, out, dirs, packages=(), flags=()):
    """Compile every .py under dirs to out/<path within its dir>.mpy; return [(src, dst, size)]. flags: more
    mpy-cross options (UNIT_FLAGS for what a unit runs). A constant one module reads from another is the reader's
    own private `_NAME = const(v)` copy (micropython-lib's convention), so mpy-cross folds it there. A package
    whose __init__.py holds only its docstring gets no __init__.mpy (_namespace_init).

    Each dir is a module root (firmware/ is on the unit's sys.path), so firmware/bidwire/core/calls.py
    becomes out/bidwire/core/calls.mpy and its tracebacks name "bidwire.core.calls" (_module_name).
    .mpy files left in out by sources that no longer exist are removed, so out can be copied to a unit as is.
    """
    out = Path(out)
    todo = [(src, src.relative_to(root)) for root, src in _sources(dirs, packages)]
    built = {}
    for src, rel in todo:
        dst = out / rel.with_suffix(".mpy")
        if dst in built:
            raise CompileError(f"{src} and {built[dst][0]} would both compile to {dst}")
        dst.parent.mkdir(parents=True, exist_ok=True)
        name = _module_name(rel)
        source = src
        # written beside and renamed into place: a virtual unit importing from out meanwhile sees the old file
        # or the new one, never a half-written one (a truncated .mpy can hang the MicroPython unix port)
        tmp = dst.with_name(f".{dst.name}.{os.getpid()}.tmp")
        cmd = [str(mpy_cross), *flags, "-s", name, "-o", str(tmp), str(source)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            tmp.unlink(missing_ok=True)
            why = (proc.stderr + proc.stdout).strip().replace(str(source), str(src))
            raise CompileError(f"mpy-cross rejected {src}:\n{why}")
        if not dst.exists() or dst.read_bytes() != tmp.read_bytes():
            os.replace(tmp, dst)
        else:
            tmp.unlink()  # unchanged: the file in place stays (and keeps its time)
        built[dst] = (src, dst, dst.stat().st_size)
    for stale in out.rglob("*.mpy"):
        if stale not in built:
            stale.unlink()
    return list(built.values())


@click.command()
@click.option("--mpy-cross", "mpy_cross", required=True, type=click.Path(exists=True, dir_okay=False),
              help="The mpy-cross executable (its version fixes the .mpy format).")
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Output tree, e.g. build/mpy.")
@click.option("--package", "packages", multiple=True, type=click.Path(exists=True, file_okay=False),
              help="A package dir compiled under its own name (boards -> OUT/boards/...).")
@click.option("--line-numbers", is_flag=True,
              help="Compile without UNIT_FLAGS, as the tests need: asserts kept (-O3 drops them) and the "
                   "line-number tables (tracebacks with lines).")
@click.argument("dirs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False))
def main(mpy_cross, out, dirs, packages, line_numbers):
    """Compile every .py under DIRS to .mpy in OUT as a unit gets them (UNIT_FLAGS) and print the flash footprint."""
    try:
        modules = compile_tree(mpy_cross, out, dirs, packages, flags=() if line_numbers else UNIT_FLAGS)
    except CompileError as e:
        raise click.ClickException(str(e)) from None
    total = sum(size for _, _, size in modules)
    core = sum(size for _, dst, size in modules if dst.relative_to(out).is_relative_to(CORE))
    click.echo(f"mpy-cross: {len(modules)} modules, {total:,} bytes (core {core:,} bytes)")


if __name__ == "__main__":
    main()

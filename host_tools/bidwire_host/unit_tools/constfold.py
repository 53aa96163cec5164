"""Cross-module constant folding for what goes on a unit: `codes.RULE_REJECT` becomes `1` in the code that reads it,
as mpy-cross already does within the module that declares `RULE_REJECT = const(1)`.

mpy-cross folds a `const()` only inside its own module. Read from another module (`codes.RULE_REJECT`, or a name
taken with `from bidwire.core.codes import ...`), a constant stays a global of its module, looked up at run time: a
dict entry and a name (qstr) for each, and the lookup's bytecode at each use. Loaded from .mpy files on stock
firmware all of that sits in the heap. Folded, 74 of the firmware's 85 public constants leave their modules' globals
and about 290 reads become integers: 2,704 B less heap once booted on the 32-bit build (docs/benchmarks.md,
"Constants folded across modules").

fold_tree() rewrites the sources of a whole tree (every module a unit gets, compiled together) before mpy-cross:

- a read of module M's public `NAME = const(<int>)`, as `alias.NAME` (alias bound by an import of M) or as NAME
  (bound by `from M import NAME`), becomes the integer; a `from M import NAME` loses NAME (a statement left empty
  becomes `pass`);
- in M, NAME becomes `_NAME`, which mpy-cross then keeps out of the module's globals, when nothing in the tree still
  reads it by name: no attribute `.NAME` left anywhere (whatever its object), no string "NAME" (getattr), no other
  binding of NAME in M.

A name that a module binds otherwise as well (an argument, an assignment, another import under the same name) is
left alone in that module: the rewrite never has to decide which binding a use means. The sources' own text is kept
but for the spans rewritten, line for line, so line numbers do not move. The sources themselves are not changed:
the host's tests and the frozen builds read them as they are.
"""
import ast
import re

_OPS = {ast.Add: int.__add__, ast.Sub: int.__sub__, ast.Mult: int.__mul__, ast.LShift: int.__lshift__,
        ast.RShift: int.__rshift__, ast.BitOr: int.__or__, ast.BitAnd: int.__and__, ast.BitXor: int.__xor__}


def _value(node, known):
    """The integer of an expression const() takes: literals, the module's constants above it, + - * << >> | & ^."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name) and node.id in known:
        return known[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Invert)):
        value = _value(node.operand, known)
        return None if value is None else (-value if isinstance(node.op, ast.USub) else ~value)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _value(node.left, known), _value(node.right, known)
        return None if left is None or right is None else _OPS[type(node.op)](left, right)
    return None


def _int_const(node, known):
    """The integer of a top-level `NAME = const(<integer expression>)`, or None."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
        return None
    call = node.value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "const"
            and len(call.args) == 1 and not call.keywords):
        return None
    return _value(call.args[0], known)


def _bindings(tree):
    """name -> how many times the module binds it, anywhere (assignments, arguments, defs, imports, loops, ...)."""
    counts = {}

    def bind(name):
        counts[name] = counts.get(name, 0) + 1

    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bind(node.id)
        elif isinstance(node, ast.arg):
            bind(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bind(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                bind(a.asname or a.name.split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bind(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                bind(name)
    return counts


class _Module:
    def __init__(self, name, text):
        self.name = name
        self.text = text
        self.tree = ast.parse(text, name)
        self.lines = _lines(text)
        self.consts = {}  # public const name -> its value
        self.defined = {}  # public const name -> where it is assigned: (line, column)
        known = {}
        for node in self.tree.body:
            value = _int_const(node, known)
            if value is not None:
                known[node.targets[0].id] = value
                if not node.targets[0].id.startswith("_"):
                    self.consts[node.targets[0].id] = value
                    self.defined[node.targets[0].id] = (node.lineno, node.col_offset)
        self.bound = _bindings(self.tree)
        self.edits = []  # (start, end, replacement): (line, byte column) positions of the source


def _literal(value):
    """In parentheses, so that the integer reads the same wherever the name stood (`-1 ** 2`, `(3).bit_length()`)."""
    return f"({value})"


def _span(node):
    return (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)


def _fold_uses(mod, modules):
    """Rewrite mod's reads of other modules' constants. Returns (left, imports): the names left as they were that
    could still name a constant (attributes, from-import names kept), for the decision to drop a constant's global;
    and the from-imports with names to drop, [(node, names to drop)], rewritten once the whole tree is read
    (_drop_imports: a name another module reads through this one stays)."""
    bound_to = {}  # name bound by imports -> what each binds it to (a module of the tree, a constant's value, None)
    imports = []
    in_class = {id(n) for c in ast.walk(mod.tree) if isinstance(c, ast.ClassDef) for n in c.body}
    for node in ast.walk(mod.tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                bound = a.asname or a.name.split(".")[0]
                bound_to.setdefault(bound, []).append(modules.get(a.name) if a.asname else None)
        elif isinstance(node, ast.ImportFrom):
            source = modules.get(node.module) if node.module and node.level == 0 else None
            # an import in a class body binds a class attribute; a multi-line one with more on its last line
            # cannot be rewritten line for line: both stay as they are
            after = mod.lines[node.end_lineno - 1][node.end_col_offset:].decode().strip()  # on its last line
            fixed = id(node) in in_class or (node.end_lineno > node.lineno and after and not after.startswith("#"))
            imports.append((node, None if fixed else source))
            for a in node.names:
                full = modules.get(f"{node.module}.{a.name}") if node.module and node.level == 0 else None
                value = source.consts[a.name] if source is not None and a.name in source.consts else None
                bound_to.setdefault(a.asname or a.name, []).append(
                    None if id(node) in in_class else
                    full if full is not None else (value if value is not None and not a.asname else None))
    # folded: a name that only imports bind, all to the same module or constant (`from bidwire.unit import app as
    # A` in two functions); not a name bound otherwise too (an argument, an assignment)
    one = {k: v[0] for k, v in bound_to.items() if v[0] is not None and v.count(v[0]) == len(v)
           and mod.bound.get(k) == len(v)}
    names = {k: v for k, v in one.items() if isinstance(v, int)}  # from M import NAME -> its value
    aliases = {k: v for k, v in one.items() if isinstance(v, _Module)}
    left = []
    # inside an f-string a node's columns are not to be trusted before Python 3.12: such reads stay as they are
    in_fstrings = {id(n) for f in ast.walk(mod.tree) if isinstance(f, ast.JoinedStr) for n in ast.walk(f)}
    for node in ast.walk(mod.tree):
        if id(node) in in_fstrings:
            if isinstance(node, ast.Attribute):
                left.append(node.attr)
            elif isinstance(node, ast.Name):
                names.pop(node.id, None)  # its from-import stays too
        elif isinstance(node, ast.Attribute):
            base = node.value
            target = aliases.get(base.id) if isinstance(base, ast.Name) else None
            if (target is not None and isinstance(node.ctx, ast.Load) and node.attr in target.consts):
                mod.edits.append((*_span(node), _literal(target.consts[node.attr])))
            else:
                left.append(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in names:
            mod.edits.append((*_span(node), _literal(names[node.id])))
    drops = []
    for node, source in imports:
        drop = {a.name for a in node.names if a.name in names and not a.asname} if source is not None else set()
        left.extend(a.name for a in node.names if a.name not in drop)
        if drop:
            drops.append((node, drop))
    return left, drops


def _drop_imports(mod, drops, left):
    """Rewrite mod's from-imports without the names folded, but those the tree still reads by name (through this
    module: `mid.NAME`, `from mid import NAME`); a statement left empty becomes `pass`."""
    for node, drop in drops:
        kept = [a for a in node.names if a.name not in drop or a.name in left]
        if len(kept) == len(node.names):
            continue
        text = ast.unparse(ast.ImportFrom(node.module, kept, 0)) if kept else "pass"
        mod.edits.append((*_span(node), text + "\n" * (node.end_lineno - node.lineno)))  # same lines after it


def _strings(tree):
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def _lines(text):
    """The source's lines as ast counts them (\\n, \\r\\n or \\r ends a line; a form feed does not), as UTF-8."""
    return [line.encode() for line in re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", text)]


def _apply(mod):
    """The module's source with each edit's span replaced; columns are UTF-8 byte offsets (ast's)."""
    lines = list(mod.lines)
    for (l0, c0), (l1, c1), new in sorted(mod.edits, reverse=True):
        head, tail = lines[l0 - 1][:c0], lines[l1 - 1][c1:]
        lines[l0 - 1:l1] = [head + new.encode() + tail]
    return b"".join(lines).decode()


def fold_tree(sources):
    """sources: {dotted module name: source text}, every module of the tree. Returns the same keys with the folded
    texts (a module with nothing to fold keeps its text as it is)."""
    try:
        mods = {name: _Module(name, text) for name, text in sources.items()}
    except SyntaxError:
        return dict(sources)  # nothing folded: mpy-cross says what does not compile, and where
    # a constant some module assigns or deletes as an attribute (`codes.A = 9`) is not a constant: never folded
    stored = {n.attr for m in mods.values() for n in ast.walk(m.tree)
              if isinstance(n, ast.Attribute) and not isinstance(n.ctx, ast.Load)}
    starred = {n.module for m in mods.values() for n in ast.walk(m.tree)
               if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)}
    for m in mods.values():
        m.consts = {k: v for k, v in m.consts.items() if k not in stored}
    by_name = {m.name: m for m in mods.values()}
    left, strings, drops = set(), set(), {}
    for mod in mods.values():
        names, drops[mod.name] = _fold_uses(mod, by_name)
        left.update(names)
        strings |= _strings(mod.tree)
    for mod in mods.values():
        _drop_imports(mod, drops[mod.name], left | strings)
    for mod in mods.values():
        if mod.name in starred:  # `from M import *` takes M's public names: they all stay
            continue
        private = {name for name in mod.consts
                   if name not in left and name not in strings and mod.bound.get(name) == 1
                   and mod.bound.get("_" + name) is None and _defined_first(mod, name)}
        for node in ast.walk(mod.tree):
            if isinstance(node, ast.Name) and node.id in private:
                mod.edits.append((*_span(node), "_" + node.id))
    return {name: _apply(m) if m.edits else m.text for name, m in mods.items()}


def _defined_first(mod, name):
    """mpy-cross replaces a private const only where it reads after the definition (a function above it would
    look the name up, and find no global): so a constant read above its definition keeps its name."""
    at = mod.defined[name]
    return all((n.lineno, n.col_offset) >= at for n in ast.walk(mod.tree) if isinstance(n, ast.Name) and n.id == name)

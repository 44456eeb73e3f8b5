"""Runs INSIDE a probed program: describes what the failing statement read when the program failed.

Standalone (no autodd import, Python 3.9 syntax), like `operands_hook.py`: the probe
(`engine/rules/operand_probe.py`) runs this file's source in a namespace of its own on the
line of the program's first module-level statement. It wraps `sys.excepthook` (the
warm runner calls it too, as Python does for an uncaught exception): before the
traceback is printed, it writes one marker line to stderr,
`<autodd-statement:{json}>`, a *record* of the failing statement:

- `line`: the line of the innermost frame that belongs to the program (`__main__`'s
  file: rule 3's place);
- `module`: when the failure came through one of the program's own modules after that
  frame (beside it or below its folder, not an installed package: a training script's
  `model.py` before the reduction inlines it), the same record of the innermost such
  frame, with `file`, its path from the program's folder;
- `op` and `operands`: the operation that failed, found from the frame's instruction
  position (`co_positions`, the span tracebacks' carets use; Python 3.11 and later),
  and its direct operands by position (`value`, `slice`, `func`, `args.0`, `kw.dim`,
  `left`, ...);
- `params`: the failing function's parameters (a kernel fed an argparse
  `Namespace` where its tensors were is not the user's kernel call); `callee`: when
  the failure comes from a library function the statement called, that function
  (file and name) and its parameters as it received them (the arguments however
  the statement wrote them: `nn.Embedding(1, 1)(x)` is not the user's table);
- `reads`: the names and attribute chains of names (`REGION_MANAGERS`,
  `self.table`) the statement loads, by their text; for the program's own `raise`,
  also those of the test of the innermost `if` that guards it (what decided to raise).

Nothing with side effects is evaluated: names are looked up in the frame (locals,
globals, builtins), attributes statically (an instance's `__dict__`, its class's
plain attributes, torch modules' parameters and submodules; never a property or a
`__getattr__`), and an operand that is a literal (`{}`, `"west"`, `(1, 2)`) is
described from the literal. A value's descriptor: its type's qualified name; for
None, bools, ints, floats and strings of up to 40 characters their value (a
string's length always); for dates, decimals, fractions, complex numbers and
ranges their repr; for tensors, arrays, TileLang buffers shape, dtype (device type); for
containers their length, the types of their items, and when at most 32 of them
are such scalars, the entries themselves (a dict's keys alone when only those
are), else for a list or tuple of at most 8 each item's descriptor; for other objects (a dataclass, an `nn.Module`, an
argparse `Namespace`) the descriptors of their public instance attributes, one
level deep. The program's objects are only read, never changed.
"""

import ast
import itertools
import json
import os
import sys

_SHORT = 40  # a string up to this long is described by its value
_ITEMS = 64  # items looked at for a container's item types
_KEYS = 32  # a dict with at most this many scalar keys is described by its keys
_FIELDS = 24  # public attributes described per object
_EACH = 8  # a list or tuple of at most this many objects describes each
_VALUE_MODULES = ("datetime", "decimal", "fractions")
_COMPREHENSIONS = ("Lambda", "ListComp", "SetComp", "DictComp", "GeneratorExp")
_INNER_FRAMES = ("<lambda>", "<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")
_STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers", "cases")
_UNKNOWN = object()
_METHOD = object()


def _type_name(value):
    kind = type(value)
    return str(getattr(kind, "__module__", "?")) + "." + str(getattr(kind, "__qualname__", kind.__name__))


def _describe(value, depth=0):
    """The descriptor of one value (see the module's docstring)."""
    if value is _METHOD:
        return {"type": "builtins.method"}
    out = {"type": _type_name(value)}  # type: dict
    if value is None or isinstance(value, bool):
        out["value"] = value
    elif isinstance(value, int):
        whole = int.__int__(value)
        if -2 ** 63 <= whole < 2 ** 63:
            out["value"] = whole
    elif isinstance(value, float):
        number = float.__float__(value)
        out["value"] = number if number == number and abs(number) != float("inf") else repr(number)
    elif isinstance(value, str):
        out["len"] = str.__len__(value)
        if out["len"] <= _SHORT:
            out["value"] = str.__str__(value)
    elif isinstance(value, (bytes, bytearray)):
        out["len"] = bytes.__len__(value) if isinstance(value, bytes) else bytearray.__len__(value)
    elif _array(value, out):
        pass
    elif type(value).__module__ in _VALUE_MODULES or type(value) in (complex, range):
        out["repr"] = repr(value)[:_SHORT * 2]  # the standard library's own value types: their repr is their value
    elif isinstance(value, dict):
        keys = list(itertools.islice(dict.__iter__(value), _KEYS + 1))
        out["len"] = dict.__len__(value)
        out["keys"] = ",".join(sorted({_type_name(k) for k in keys}))
        if len(keys) <= _KEYS and all(_scalar(k) for k in keys):
            out["key_values"] = sorted(repr(k) for k in keys)
            entries = [dict.__getitem__(value, k) for k in keys]
            if all(_scalar(v) for v in entries):
                out["entries"] = sorted(repr(k) + ": " + repr(v) for k, v in zip(keys, entries))  # noqa: B905 - Python 3.9
    elif isinstance(value, (list, tuple, set, frozenset)):
        base = next(kind for kind in (list, tuple, set, frozenset) if isinstance(value, kind))
        out["len"] = base.__len__(value)  # type: ignore[arg-type]  # the builtin's, never an override
        items = list(itertools.islice(base.__iter__(value), _ITEMS))  # type: ignore[arg-type]
        out["items"] = ",".join(sorted({_type_name(x) for x in items}))
        if out["len"] <= _KEYS and all(_scalar(x) for x in items):
            shown = [repr(x) for x in items]
            out["entries"] = sorted(shown) if base in (set, frozenset) else shown
        elif depth == 0 and out["len"] <= _EACH and base in (list, tuple):
            out["each"] = [_describe(x, 1) for x in items]  # a few objects (a call's arguments): each described
    elif depth == 0 and not isinstance(value, type) and type(value).__name__ != "module":
        fields = _instance_dict(value)
        if fields is not None:
            described = {}  # type: dict
            for name in list(fields)[:4 * _FIELDS]:
                if isinstance(name, str) and not name.startswith("_") and len(described) < _FIELDS:
                    described[name] = _describe(fields[name], 1)
            if described:
                out["fields"] = described
    return out


def _scalar(value):
    """None, a bool, an int, a float or a short string: a value small enough to be compared as it is."""
    kind = type(value)
    return value is None or kind in (bool, int, float) or (kind is str and len(value) <= _SHORT)


def _array(value, out):
    """Shape, dtype and device of a torch tensor or a numpy array (or scalar) into `out`."""
    torch = sys.modules.get("torch")
    numpy = sys.modules.get("numpy")
    if torch is not None and isinstance(value, torch.Tensor):
        out["shape"] = [int(n) for n in value.shape]
        out["dtype"] = str(value.dtype)
        out["device"] = str(value.device.type)
        return True
    if numpy is not None and isinstance(value, (numpy.ndarray, numpy.generic)):
        out["shape"] = [int(n) for n in value.shape]
        out["dtype"] = str(value.dtype)
        return True
    if type(value).__name__ == "Buffer" and str(type(value).__module__).startswith("tvm"):  # a TileLang tile:
        try:  # what a kernel's op checks (`T.alloc_shared((64, 32), "float16")`)
            out["shape"] = [int(n.value) if isinstance(getattr(n, "value", None), int) else str(n) for n in value.shape]
            out["dtype"] = str(value.dtype)
        except Exception:  # noqa: BLE001 - one the FFI cannot describe: its type alone
            pass
        return True
    return False


def _instance_dict(value):
    try:
        fields = object.__getattribute__(value, "__dict__")
    except Exception:  # noqa: BLE001 - no instance dict (slots, builtins)
        return None
    return fields if isinstance(fields, dict) else None


def _attribute(value, name):
    """`value.name` looked up without running the program's code; _UNKNOWN when that would."""
    found = _UNKNOWN
    kinds = value.__mro__ if isinstance(value, type) else type(value).__mro__
    for kind in kinds:
        if name in kind.__dict__:
            found = kind.__dict__[name]
            break
    if isinstance(value, type):
        if found is _UNKNOWN:
            return _UNKNOWN
        if isinstance(found, staticmethod):
            return found.__func__
        if isinstance(found, classmethod):
            return _METHOD
        return _UNKNOWN if hasattr(type(found), "__get__") and not callable(found) else found
    member = type(found).__name__ == "member_descriptor"
    if found is not _UNKNOWN and hasattr(type(found), "__set__") and not member:
        return _UNKNOWN  # a property or another data descriptor: its getter is the program's code
    fields = _instance_dict(value)
    if fields is not None:
        if name in fields:
            return fields[name]
        for store in ("_parameters", "_buffers", "_modules"):  # torch.nn.Module keeps these apart
            inner = fields.get(store)
            if isinstance(inner, dict) and name in inner:
                return inner[name]
    if found is _UNKNOWN:
        return _UNKNOWN
    if member:
        try:
            return found.__get__(value, type(value))  # type: ignore[attr-defined]
        except AttributeError:
            return _UNKNOWN
    if isinstance(found, staticmethod):
        return found.__func__
    if type(found).__name__ == "function" or isinstance(found, classmethod):
        return _METHOD
    return _UNKNOWN if hasattr(type(found), "__get__") else found


def _chain(node):
    """['a', 'b', 'c'] for `a.b.c` (a name and attributes), else None."""
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    names.append(node.id)
    return names[::-1]


def _resolve(names, frame):
    scopes = (frame.f_locals, frame.f_globals, frame.f_builtins)
    value = next((scope[names[0]] for scope in scopes if names[0] in scope), _UNKNOWN)
    for name in names[1:]:
        if value is _UNKNOWN or value is _METHOD:
            return _UNKNOWN
        value = _attribute(value, name)
    return value


def _operand(node, frame):
    """The descriptor of an operand written as a name chain or a literal; None otherwise."""
    names = _chain(node)
    if names is not None:
        value = _resolve(names, frame)
        return None if value is _UNKNOWN else _describe(value)
    try:
        return _describe(ast.literal_eval(node))
    except Exception:  # noqa: BLE001 - not a literal (a call, an operation)
        return None


def _contains(node, line, col):
    start = (node.lineno, node.col_offset)
    end = (getattr(node, "end_lineno", None) or node.lineno, getattr(node, "end_col_offset", None) or 1 << 30)
    return start <= (line, col) < end or (line, col) == start


def _innermost(nodes, line, col):
    best = None
    for node in nodes:
        if _contains(node, line, col) and (best is None or (node.lineno, node.col_offset) >= (best.lineno, best.col_offset)):
            best = node
    return best


def _region(statement):
    """The parts of a statement it evaluates itself: a compound statement's header, a simple one whole."""
    parts = []
    for field, value in ast.iter_fields(statement):
        if field in _STATEMENT_LISTS or field == "decorator_list":
            continue
        parts.extend(value if isinstance(value, list) else [value])
    return [part for part in parts if isinstance(part, ast.AST)]


def _reads(node, out, skip_inner):
    if isinstance(node, (ast.Name, ast.Attribute)):
        names = _chain(node)
        if names is not None:
            if isinstance(node.ctx, ast.Load):
                out.append(names)
            return
    if skip_inner and type(node).__name__ in _COMPREHENSIONS:
        return
    for child in ast.iter_child_nodes(node):
        _reads(child, out, skip_inner)


def _parse_around(path, code):
    """The tree of the code object's own lines (a function's), line numbers as in the file; the
    whole file's when they do not parse alone (a lambda's, a comprehension's) or for a module."""
    with open(path, "rb") as handle:
        source = handle.read()
    if code.co_name != "<module>":
        ends = [end for _, end, _, _ in code.co_positions() if end is not None] if hasattr(code, "co_positions") else []
        first = code.co_firstlineno
        lines = source.splitlines(keepends=True)[first - 1:max([*ends, first])]
        if lines:
            indented = lines[0][:1] in (b" ", b"\t")
            try:
                tree = ast.parse((b"if 1:\n" if indented else b"") + b"".join(lines))
            except SyntaxError:
                pass
            else:
                ast.increment_lineno(tree, first - 1 - (1 if indented else 0))
                return tree
    return ast.parse(source)


def _own_files(main):
    """Whether a path is a module of the program's own: below its folder, and neither an
    installed package nor the interpreter's own library (a virtual environment or a conda there)."""
    folder = os.path.dirname(main) + os.sep
    installed = tuple({prefix + os.sep for prefix in (sys.prefix, sys.base_prefix, sys.exec_prefix) if prefix})
    return lambda path: path.startswith(folder) and path.endswith(".py") and not path.startswith(installed) \
        and "-packages" + os.sep not in path[len(folder):]


def _record(tb, main):
    own = _own_files(main)
    frame_tb = module_tb = None
    while tb is not None:
        path = tb.tb_frame.f_code.co_filename
        if path == main:
            frame_tb, module_tb = tb, None
        elif frame_tb is not None and own(path):
            module_tb = tb
        tb = tb.tb_next
    if frame_tb is None:
        return None
    record = _frame_record(frame_tb, main)
    if module_tb is not None:
        path = module_tb.tb_frame.f_code.co_filename
        record["module"] = _frame_record(module_tb, path)
        record["module"]["file"] = os.path.relpath(path, os.path.dirname(main))
    return record


def _frame_record(frame_tb, path):
    """The record of the failing statement of `frame_tb`'s frame, a frame of the file `path`."""
    frame, code = frame_tb.tb_frame, frame_tb.tb_frame.f_code
    line, span = frame_tb.tb_lineno, None
    if hasattr(code, "co_positions") and frame_tb.tb_lasti >= 0:
        span = next(itertools.islice(code.co_positions(), frame_tb.tb_lasti // 2, None), None)
        if span is not None and None in span:
            span = None
    tree = _parse_around(path, code)
    col = span[2] if span is not None else None
    at = (line, col if col is not None else 0)
    statements = [n for n in ast.walk(tree) if isinstance(n, ast.stmt) and n.lineno <= line]
    statement = _innermost(statements, *at) if col is not None else \
        _innermost([n for n in statements if n.lineno == line], line, 0)
    record = {"line": line, "reads": {}, "operands": {}, "params": _params(frame, code)}
    callee = frame_tb.tb_next  # the library function the failing statement called, as it received its arguments
    if callee is not None:
        called = callee.tb_frame.f_code
        record["callee"] = {"code": os.path.basename(called.co_filename) + ":" + called.co_name,
                            "params": _params(callee.tb_frame, called)}
    if statement is None:
        return record
    roots = _region(statement)
    inner = code.co_name in _INNER_FRAMES and col is not None
    if inner:
        scope = _innermost([n for r in roots for n in ast.walk(r) if type(n).__name__ in _COMPREHENSIONS], *at)
        roots = [scope] if scope is not None else roots
    guard = _guard(statements, statement) if isinstance(statement, ast.Raise) and not inner else None
    if guard is not None:
        roots.append(guard.test)  # the program's own raise: what made it raise is read too
    names = []  # type: list
    for root in roots:
        _reads(root, names, not inner)
    if record["params"]:
        record["flows"] = _flows(tree, {chain[0] for chain in names}, set(record["params"]))
    for chain in names:
        value = _resolve(chain, frame)
        while (value is _UNKNOWN or value is _METHOD) and len(chain) > 1:
            chain = chain[:-1]  # `obj.method`, `obj.prop`: the object is what is read
            value = _resolve(chain, frame)
        if value is not _UNKNOWN:
            record["reads"][".".join(chain)] = _describe(value)
    if span is not None:
        wanted = (span[0], span[2], span[1], span[3])
        node = next((n for n in ast.walk(statement) if isinstance(n, (ast.expr, ast.stmt)) and
                     (n.lineno, n.col_offset, n.end_lineno, n.end_col_offset) == wanted), None)
        if node is not None:
            record["op"] = type(node).__name__
            record["operands"] = _operands(node, frame)
    return record


def _flows(tree, read, params):
    """The parameters the failing statement reads, itself or through the assignments of the
    function's own lines (`right_child = node.get_right()` before `assert right_child`): no
    order, no branches, names only."""
    assigned = []  # (names bound, names read)
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)) else []
        value = node.iter if isinstance(node, (ast.For, ast.AsyncFor)) else getattr(node, "value", None)
        if targets and value is not None:
            bound = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            assigned.append((bound, {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}))
    wanted, grew = set(read), True
    while grew:
        grew = False
        for bound, reads in assigned:
            if bound & wanted and not reads <= wanted:
                wanted |= reads
                grew = True
    return sorted(wanted & params)


def _params(frame, code):
    """The failing function's parameters as they are at the failure (what it was called with)."""
    count = code.co_argcount + code.co_kwonlyargcount + (code.co_flags & 0x04 != 0) + (code.co_flags & 0x08 != 0)
    names = code.co_varnames[:count] if code.co_name not in _INNER_FRAMES and code.co_name != "<module>" else ()
    local = frame.f_locals
    return {name: _describe(local[name]) for name in names if name in local}


def _guard(statements, raising):
    """The innermost `if` whose body (or else) holds `raising`, in the same function; None if none."""
    at = (raising.lineno, raising.col_offset)
    scope = _innermost([n for n in statements if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                        and n is not raising], *at)
    guards = [n for n in statements if isinstance(n, ast.If) and not _contains(n.test, *at)
              and (scope is None or (n.lineno, n.col_offset) > (scope.lineno, scope.col_offset))]
    return _innermost(guards, *at)


def _operands(node, frame):
    out = {}
    for field, value in ast.iter_fields(node):
        items = list(enumerate(value)) if isinstance(value, list) else [(None, value)]  # type: list
        for index, item in items:
            if isinstance(item, ast.keyword) and item.arg is not None:
                key, item = "kw." + item.arg, item.value
            elif isinstance(item, ast.expr):
                key = field if index is None else field + "." + str(index)
            else:
                continue
            described = _operand(item, frame)
            if described is not None:
                out[key] = described
    return out


def _write(record):
    if record is not None:
        try:
            sys.stderr.flush()
        except Exception:  # noqa: BLE001 - a closed or replaced stderr
            pass
        os.write(2, ("\n<autodd-statement:" + json.dumps(record, separators=(",", ":"), default=repr) + ">\n").encode())


def _hook(kind, error, tb, previous=sys.excepthook):
    try:
        main = getattr(sys.modules.get("__main__"), "__file__", None)
        _write(_record(tb, main) if main else None)
    except Exception:  # noqa: BLE001 - never change what the program does
        pass
    previous(kind, error, tb)


_hook._autodd_probe = True  # type: ignore[attr-defined]  # the probe statement runs it once (it may sit in a loop)
sys.excepthook = _hook

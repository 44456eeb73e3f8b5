"""Run a program once, as `python PROGRAM` would, recording the values of its expressions.

    python record_main.py PROGRAM OUT.json [ARG...]   (ARG...: the program's own arguments)

A standalone script (no autodd import; Python 3.10+: it walks `match` statements
and calls `zip(strict=...)`): it runs under the interpreter that runs the
candidates, which may not have AutoDD installed. Under an older interpreter the
recording run fails and the reduction goes on without recorded values.

The program's syntax tree is instrumented before it is compiled, under the
program's own file name, so tracebacks, `__file__`, `inspect` and TileLang's
`@tilelang.jit` (which read the file on disk, which stays the original) behave
as in a plain run:

* every expression read by the program (not constants, callees, annotations,
  match patterns) becomes `__autodd_value__(i, expr)`, which
  returns the value unchanged;
* every function's body first calls `__autodd_params__(j, (a, b, ...), t[, args, kwargs])` with its
  named parameters (and a method's `*`/`**` ones) (after the docstring, so `__doc__` stays); for a method (first
  parameter `self`), t keys the instance's state at the call: its attributes that the
  program assigns somewhere and whose values are plain data (numbers, short strings, and small lists, tuples, sets and
  dicts of them), each written as Python text, the last call's; and the call goes into the
  instance's story (`record_stories.Stories`) when it came from outside the instance's own methods;
* every statement (but a docstring or a `__future__` import) is preceded by
  `__autodd_ran__(k)` at its own position (`set.add`: the run map, which
  statements ran at all; the engine proposes removing the others first).

For each it keeps a kind (value, module, class, function, instance) and, for
simple values (numbers, short strings without whitespace and not an absolute
path, bools, None, small tuples and lists of them), their `repr`; for a torch tensor, `torch.zeros(shape, dtype=...)`; whether an expression had more than one value, and its last one. The
records are written as JSON when the program ends (atexit, last of all
handlers); a program killed or ending with `os._exit` records nothing.
"""

import ast
import atexit
import json
import math
import os
import sys
import types


def _load_stories():
    """`record_stories.py`, from this file's folder, under a name no user module takes (None if it cannot load)."""
    try:
        import importlib.util

        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "record_stories.py")
        spec = importlib.util.spec_from_file_location("__autodd_record_stories__", path)
        module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]  # None: caught below
        spec.loader.exec_module(module)  # type: ignore[union-attr]
        return module
    except Exception:  # noqa: BLE001 - without it, the run records no stories
        return None


_stories = _load_stories()

_STR_LIMIT = 40  # and no whitespace: a dtype, a key, a name; never a message
_TUPLE_LIMIT = 8
_STATE_ITEMS = 32  # a container of an instance's state: at most this many items
_STATE_TEXT = 600  # and an attribute's whole text at most this long
_TEXT_LIMIT = 200  # a string a call was given (`record_stories.py`)


def _tensor_repr(value):
    """`torch.zeros(shape, dtype=...)` for a torch tensor: its shape and dtype, which shape bugs are about."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(value, torch.Tensor) or value.is_sparse:
        return None
    shape = tuple(int(n) for n in value.shape)
    text = "torch.zeros(" + repr(shape) + ", dtype=" + str(value.dtype)
    if value.device.type != "cpu":
        text += ", device=" + repr(str(value.device))
    return text + ")"


def _simple_repr(value, depth=0):
    kind = type(value)
    if depth == 0 and kind.__name__ in ("Tensor", "Parameter") and kind.__module__.startswith("torch"):
        return _tensor_repr(value)
    if value is None or kind is bool or kind is int:
        return repr(value)
    if kind is float:
        return repr(value) if math.isfinite(value) else None
    if kind is str and os.path.isabs(value):
        return None  # this machine's path (`os.path.join(HERE, "data.csv")`): written in, it would read the user's file
    if kind is str or kind is bytes:
        return repr(value) if len(value) <= _STR_LIMIT and not value.split()[1:] else None
    if kind in (tuple, list) and depth == 0 and len(value) <= _TUPLE_LIMIT:
        items = [_simple_repr(item, 1) for item in value]
        if None in items:
            return None
        if kind is list:
            return "[" + ", ".join(items) + "]"
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return None


def _data_repr(value, depth=0, long_strings=False):
    """Python text for plain data (an attribute of an instance's state), None for anything else;
    `long_strings`: strings of up to _TEXT_LIMIT characters too, whitespace and all (a call's `help=`)."""
    kind = type(value)
    if kind in (list, tuple, set, dict):
        if depth >= 3 or len(value) > _STATE_ITEMS:
            return None
        if kind is dict:
            pairs = [(_data_repr(k, depth + 1, long_strings), _data_repr(v, depth + 1, long_strings))
                     for k, v in value.items()]
            if any(k is None or v is None for k, v in pairs):
                return None
            return "{" + ", ".join(k + ": " + v for k, v in pairs) + "}"
        items = [_data_repr(item, depth + 1, long_strings) for item in value]
        if None in items:
            return None
        if kind is set:
            return "{" + ", ".join(sorted(items)) + "}" if items else None  # set(): not a literal
        text = ", ".join(items)
        return "[" + text + "]" if kind is list else "(" + text + ("," if len(items) == 1 else "") + ")"
    if long_strings and kind is str and len(value) <= _TEXT_LIMIT and not os.path.isabs(value):
        return repr(value)
    if kind in (bool, int, float, str, bytes) or value is None:
        return _simple_repr(value, 1)
    return None


def _state_repr(instance, assigned):
    """[[name, text], ...]: the instance's attributes that are plain data and that the program
    assigns somewhere (`self.array = ...`: not a library base class's own), in their order."""
    attributes = getattr(instance, "__dict__", None)
    if type(attributes) is not dict:
        return None
    state = []
    for name, value in attributes.items():
        if name not in assigned:
            continue
        text = _data_repr(value)
        if text is not None and len(text) <= _STATE_TEXT:
            state.append([name, text])
    return state


def _kind(value):
    if isinstance(value, types.ModuleType):
        return "module"
    if isinstance(value, type):
        return "class"
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return "function"
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes, tuple)):
        return "value"
    if type(value) is list and len(value) <= _TUPLE_LIMIT:
        return "value"  # a short list of numbers or short strings: `[17, 18, 4]`
    return "instance"


class _Records:
    def __init__(self, keys, assigned=frozenset(), stories=None):
        self.keys = keys
        self.assigned = assigned  # the attribute names the program assigns
        self.stories = stories  # the calls each instance was given (`record_stories.Stories`)
        self.kind: list[str | None] = [None] * len(keys)
        self.first: list[str | None] = [None] * len(keys)
        self.last: list[str | None] = [None] * len(keys)
        self.first_type: list[type | None] = [None] * len(keys)
        self.many = [False] * len(keys)
        self.state: dict[int, list | None] = {}  # "t" keys: the instance's state at the last call

    def see_state(self, index, instance):
        try:
            self.state[index] = _state_repr(instance, self.assigned)
        except Exception:  # noqa: BLE001 - the user's properties and containers can raise anything
            self.state[index] = None

    def see(self, index, value):
        try:
            kind = self.kind[index]
            if kind is None:
                self.kind[index] = _kind(value)
                self.first_type[index] = type(value)
                self.first[index] = self.last[index] = _simple_repr(value)
                return
            if self.many[index] and self.first[index] is None:
                return  # nothing more to learn
            if type(value) is not self.first_type[index]:
                self.many[index] = True
                if _kind(value) != kind:
                    self.kind[index] = "mixed"
                self.last[index] = _simple_repr(value)
                return
            if self.first[index] is not None:
                text = _simple_repr(value)
                if text != self.last[index]:
                    self.many[index] = True
                    self.last[index] = text
        except Exception:  # noqa: BLE001 - the user's __repr__ can raise anything
            pass

    def dump(self, path, statements=(), ran=()):
        rows = [["s", *list(key), "ran" if index in ran else "never", None, False, None]
                for index, key in enumerate(statements)]
        for index, key in enumerate(self.keys):
            if key[0] == "t":
                if self.state.get(index):
                    rows.append([*list(key), "state", self.state[index], False, None])
                continue
            if self.kind[index] is None:
                continue
            rows.append([*list(key), self.kind[index], self.first[index], self.many[index], self.last[index]])
        if self.stories is not None:
            rows.extend(self.stories.rows())
        temporary = path + ".part"
        with open(temporary, "w") as handle:
            json.dump(rows, handle)
        os.replace(temporary, path)


class _Instrument(ast.NodeTransformer):
    def __init__(self):
        self.keys = []
        self.signatures = {}  # a method's "t" key -> its `record_stories.Signature`

    def _key(self, tag, node):
        self.keys.append((tag, node.lineno, node.col_offset, node.end_lineno, node.end_col_offset))
        return len(self.keys) - 1

    def _wrap(self, node):
        index = self._key("e", node)
        call = ast.Call(ast.Name("__autodd_value__", ast.Load()), [ast.Constant(index), node], [])
        return ast.copy_location(call, node)

    def generic_visit(self, node):
        if isinstance(node, ast.Constant):
            return node
        if isinstance(node, ast.JoinedStr):
            for part in node.values:
                if isinstance(part, ast.FormattedValue):
                    part.value = self.visit(part.value)
            return self._wrap(node)
        if isinstance(node, ast.Call):
            node.func = self._visit_callee(node.func)
            node.args = [self.visit(a) for a in node.args]
            for keyword in node.keywords:
                keyword.value = self.visit(keyword.value)
            return self._maybe_wrap(node)
        if isinstance(node, ast.arg):
            return node  # annotations stay as written
        if isinstance(node, ast.AnnAssign):
            node.target = self.visit(node.target)
            if node.value is not None:
                node.value = self.visit(node.value)
            return node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return self._visit_function(node)
        if isinstance(node, ast.match_case):
            if node.guard is not None:
                node.guard = self.visit(node.guard)
            node.body = [self.visit(s) for s in node.body]
            return node
        super().generic_visit(node)
        return self._maybe_wrap(node)

    def _visit_callee(self, func):
        if isinstance(func, ast.Attribute):
            func.value = self.visit(func.value)  # the receiver: `x` of `x.m()`
            return func
        if isinstance(func, ast.Name):
            return func
        return self.visit(func)

    def _maybe_wrap(self, node):
        if not isinstance(node, ast.expr) or isinstance(node, (ast.Starred, ast.Slice, ast.NamedExpr)):
            return node
        if not isinstance(getattr(node, "ctx", ast.Load()), ast.Load):
            return node
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
            return node
        return self._wrap(node)

    def _visit_function(self, node):
        arguments = node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        method = bool(positional) and positional[0].arg == "self"
        signature = _stories.signature_of(node) if method and _stories is not None else None
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        arguments.defaults = [self.visit(d) for d in arguments.defaults]
        arguments.kw_defaults = [None if d is None else self.visit(d) for d in arguments.kw_defaults]
        node.body = [self.visit(s) for s in node.body]
        params = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        if params:
            names: list[ast.expr] = [ast.Name(p.arg, ast.Load()) for p in params]
            indices = [self._key("p", p) for p in params]
            state = self._key("t", positional[0]) if method else -1
            told: list[ast.expr] = []
            if signature is not None:
                self.signatures[state] = signature
                told = [ast.Name(a.arg, ast.Load()) if a is not None else ast.Constant(None)
                        for a in (arguments.vararg, arguments.kwarg)]
            call = ast.Call(
                ast.Name("__autodd_params__", ast.Load()),
                # A tuple of ints is a constant to the compiler; typeshed's Constant omits tuples.
                [ast.Constant(tuple(indices)), ast.Tuple(names, ast.Load()),  # type: ignore[arg-type]
                 ast.Constant(state), *told],
                [],
            )
            first = node.body[0]
            statement = ast.copy_location(ast.Expr(call), first)
            docstring = (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            )
            node.body.insert(1 if docstring else 0, statement)
        return node


def _mark_statements(tree):
    """Put `__autodd_ran__(k)` before every statement of the program; the statements' keys, by k."""
    keys = []
    for node in list(ast.walk(tree)):
        for field in ("body", "orelse", "finalbody"):  # a handler's and a case's body: their own nodes
            body = getattr(node, field, None)
            if not isinstance(body, list) or not body or not isinstance(body[0], ast.stmt):
                continue
            marked = []
            for index, statement in enumerate(body):
                if not _stays_first(statement, index, node) and not _is_params_call(statement):
                    keys.append((statement.lineno, statement.col_offset,
                                 statement.end_lineno, statement.end_col_offset))
                    call = ast.Call(ast.Name("__autodd_ran__", ast.Load()), [ast.Constant(len(keys) - 1)], [])
                    marked.append(ast.copy_location(ast.Expr(ast.copy_location(call, statement)), statement))
                marked.append(statement)
            body[:] = marked
    return keys


def _stays_first(statement, index, parent):
    if isinstance(statement, ast.ImportFrom) and statement.module == "__future__":
        return True
    docstring_holder = isinstance(parent, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
    return docstring_holder and index == 0 and isinstance(statement, ast.Expr) \
        and isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, str)


def _is_params_call(statement):
    value = getattr(statement, "value", None)
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "__autodd_params__"


def _run(target, out_path, args=()):
    with open(target, "rb") as handle:
        source = handle.read()
    tree = ast.parse(source, target)
    instrument = _Instrument()
    tree = instrument.visit(tree)
    statements = _mark_statements(tree)
    ran: set[int] = set()
    ast.fix_missing_locations(tree)
    code = compile(tree, target, "exec", dont_inherit=True)
    assigned = frozenset(node.attr for node in ast.walk(tree)
                         if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store))
    stories = None if _stories is None else _stories.Stories(instrument.signatures, lambda value: _data_repr(value, long_strings=True), _tensor_repr)
    records = _Records(instrument.keys, assigned, stories)

    def see_params(indices, values, state=-1, varargs=None, kwargs=None):
        for index, value in zip(indices, values, strict=False):
            records.see(index, value)
        if state >= 0 and values:
            records.see_state(state, values[0])
            if stories is not None:
                stories.see(state, values, varargs, kwargs)

    def see_value(index, value):
        records.see(index, value)
        return value

    import builtins

    setattr(builtins, "__autodd_value__", see_value)  # noqa: B010 - new names: a module's stub lacks them
    setattr(builtins, "__autodd_params__", see_params)  # noqa: B010
    setattr(builtins, "__autodd_ran__", ran.add)  # noqa: B010
    atexit.register(records.dump, out_path, statements, ran)  # registered first: runs after the program's handlers

    module = types.ModuleType("__main__")
    module.__file__ = target
    setattr(module, "__builtins__", builtins)  # noqa: B010 - ModuleType's stub lacks these attributes
    setattr(module, "__cached__", None)  # noqa: B010
    sys.modules["__main__"] = module
    if stories is not None:
        stories.globals = module.__dict__
    sys.argv[:] = [target, *args]
    sys.path[0] = os.path.dirname(target)
    try:
        exec(code, module.__dict__)
    except SystemExit as error:
        if stories is not None:
            stories.end(error.__traceback__, target)
        raise
    except BaseException as error:  # noqa: BLE001 - the user's program can raise anything
        kind, trace = type(error), error.__traceback__
        if stories is not None:
            stories.end(trace, target)
        program_frames = trace.tb_next if trace is not None else None  # the program's frames only
        error.__traceback__ = program_frames
        sys.excepthook(kind, error, program_frames)
        sys.exit(130 if kind is KeyboardInterrupt else 1)


if __name__ == "__main__":
    _program, _out, _args = sys.argv[1], sys.argv[2], sys.argv[3:]
    del sys.argv[1:]
    _run(_program, _out, _args)

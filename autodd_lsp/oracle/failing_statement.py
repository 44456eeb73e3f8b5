"""The failing statement sees what it saw: the same operands where the program failed.

The same failure line from the same statement is easy to keep with the bug gone:
`KeyError: 'west'` from `REGION_MANAGERS["west"]` once the table is emptied
(`REGION_MANAGERS = {}`), a kernel's failing call fed an argparse `Namespace` where
its tensors were, an `nn.Embedding(1, 1)` where the vocabulary's width was the
mistake. A probed run (`engine/rules/operand_probe.py`, `execution/statement_hook.py`)
reports, when the program fails with an exception, a *record* of the failing
statement (in the innermost frame of the program, rule 3's place): the operation
that failed (`op`) and its operands by position (`operands`: `value`, `slice`,
`func`, `args.0`, `kw.dim`, ...), the names and attribute chains the statement
reads (`reads`; for the program's own `raise`, its guarding `if` test's too), and
the failing function's parameters (`params`), and when the failure comes from a
library function the statement called, that function's parameters as it received
them (`callee`), each as a descriptor (type; tensors' and arrays' shape, dtype and
device; containers' length, item types, a small dict's keys; small scalars' value;
an object's public attributes, one level deep).

`StatementRule` keeps the original's record and accepts a candidate's run when its
record is on a line that came from the original's failing statement and every
descriptor field the two records share agrees. Where the failure came through one
of the program's own modules (`module`: a training script's `model.py`, before the
reduction inlines it), the candidate's must come through the same line of the same
module, which no candidate changes, and what that statement read is compared too:
before, only the script's call into the module was, which saw the model one level
deep, and the user's `GPTConfig(vocab_size=26, n_embd=128)` lost its keywords to
the defaults (`nn.Embedding(50304, 768)` in nanoGPT's result). How operands
correspond:

- `operands` by the operation and the position (`Subscript` `value`): a variable
  that the reduction inlined or renamed is compared through its position, and a
  literal in that position is described from the literal (`{}["west"]` is a
  `dict` of length 0 where the original's was 3);
- `callee` parameters by the function (file and name) and the parameter's name: the
  arguments as the library received them, however the candidate wrote them
  (`nn.Embedding(1, 1)(x)` where the original called `self.emb(idx)`);
- `reads` by their text (`REGION_MANAGERS`, `self.emb`), `params` by name, but
  for the size of an object's collections (`self.items`' length and keys: the
  entries the statement uses are in `reads`, the others are the route's, an
  inventory's other items where the check that fails reads one). A name
  the candidate no longer reads or has (inlined, renamed, replaced by its value, a
  parameter dropped) is not compared, except a parameter the failing statement
  reads (itself or through its function's assignments: `flows`) whose value is an
  object described by its attributes: the candidate's failing function must still
  have it (`held_parameters`; else the AVL tree's `rl_rotation(node)`, inlined
  into its caller, failed the same way on a `MyNode()` with no children);
- inside a descriptor, the fields both have (an object's attributes the candidate
  dropped are not compared; its type always is).

Fields that differ between the original's two probed runs (an unseeded random
value, an id) are dropped (`varying`), as the wrong-answer rule does. Constants
that do not reach the failing statement are not pinned: only what it reads is.

Under pytest (a test as SOURCE), which never calls `sys.excepthook`, a plugin
registered with it writes the same record for the failing test's exception
(`execution/pytest_hook.py`). Limits: a failure the program catches and prints
itself (no uncaught exception) has no record, nor a failure inside a thread; an operand that is neither a name
chain nor a literal (a call's result) is only seen through the names it reads;
Python before 3.11 has no instruction positions (then `reads` alone).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from autodd_lsp.oracle.operands import from_statements

StatementRecord = dict[str, Any]


@cache
def statement_source() -> str:
    """The source of the hook that makes the records (`execution/statement_hook.py`, standalone: it
    runs inside probed programs, never imported), followed by its pytest part (`pytest_hook.py`)."""
    folder = Path(__file__).resolve().parent.parent / "execution"
    hook, under_pytest = ((folder / name).read_text(encoding="utf-8") for name in ("statement_hook.py", "pytest_hook.py"))
    return f"{hook}\n{under_pytest}\nregister(_record, _write)\n"


def flat(record: StatementRecord) -> dict[str, object]:
    """A record as `path -> value`: `reads.REGION_MANAGERS.len`, `operands.Subscript.slice.value`,
    `reads.order.fields.order_id.type`; its module's record's under `module.`."""
    out = _flat(record)
    module = record.get("module")
    if isinstance(module, dict):
        out.update((f"module.{path}", value) for path, value in _flat(module).items())
    return out


def _flat(record: StatementRecord) -> dict[str, object]:
    out: dict[str, object] = {}
    op = record.get("op")
    for name, descriptor in (record.get("reads") or {}).items():
        _flatten(f"reads.{name}", descriptor, out)
    params: dict[str, object] = {}
    for name, descriptor in (record.get("params") or {}).items():
        _flatten(f"params.{name}", descriptor, params)
    out.update((path, value) for path, value in params.items() if not _a_collections_size(path))
    callee = record.get("callee")
    if isinstance(callee, dict):
        for name, descriptor in (callee.get("params") or {}).items():
            _flatten(f"callee.{callee.get('code')}.{name}", descriptor, out)
    if op:
        for position, descriptor in (record.get("operands") or {}).items():
            _flatten(f"operands.{op}.{position}", descriptor, out)
    return out


def _a_collections_size(path: str) -> bool:
    """`params.self.fields.items.len`: what a parameter's collection attribute holds beyond its
    type and its keys' type (its length, its keys, its items). The entries the failing statement uses are in its `reads`; the
    others are the route's (an inventory's other items, where the check reads the one that fails)."""
    parts = path.split(".")
    return len(parts) > 4 and parts[2] == "fields" and (parts[4] in ("len", "key_values") or "each" in parts[4:])


def _flatten(prefix: str, descriptor: object, out: dict[str, object]) -> None:
    if not isinstance(descriptor, dict):
        return
    for field, value in descriptor.items():
        if field == "fields" and isinstance(value, dict):
            for name, inner in value.items():
                _flatten(f"{prefix}.fields.{name}", inner, out)
        elif field == "each" and isinstance(value, list):
            for index, inner in enumerate(value):
                _flatten(f"{prefix}.each.{index}", inner, out)
        else:
            out[f"{prefix}.{field}"] = value


def varying_paths(first: StatementRecord, second: StatementRecord | None) -> frozenset[str]:
    """The paths that differ between two runs of the original (or that one of them lacks)."""
    if second is None:
        return frozenset()
    a, b = flat(first), flat(second)
    return frozenset(path for path in a.keys() | b.keys() if a.get(path, _MISSING) != b.get(path, _MISSING))


_MISSING = object()


def differences(original: StatementRecord, candidate: StatementRecord, varying: frozenset[str] = frozenset()) -> list[str]:
    """The shared paths whose values differ (those in `varying` aside); a descriptor whose type
    differs counts once, by its type."""
    ours, theirs = flat(original), flat(candidate)
    differ = [path for path in ours.keys() & theirs.keys() if path not in varying and ours[path] != theirs[path]]
    retyped = {path[: -len(".type")] for path in differ if path.endswith(".type")}
    return sorted(path for path in differ if path.endswith(".type") or path.rsplit(".", 1)[0] not in retyped)


class StatementRule:
    """The original's failing statement as it read its operands, and whether a candidate's run repeats it."""

    def __init__(self, original: StatementRecord, failing_statements: frozenset[int], varying: frozenset[str] = frozenset()) -> None:
        self.original = original
        self.failing_statements = failing_statements  # the original statements its line holds
        self.varying = varying

    def accepts(self, record: StatementRecord | None, statements_of: Callable[[int], frozenset[int] | None] | None) -> bool:
        if record is None or differences(self.original, record, self.varying):
            return False
        if not held_parameters(self.original) <= set(record.get("params") or {}):
            return False
        module, theirs = self.original.get("module"), record.get("module") or {}
        if module is not None and (theirs.get("file"), theirs.get("line")) != (module.get("file"), module.get("line")):
            return False  # the failure no longer comes through the same line of the same module
        return from_statements(record, self.failing_statements, statements_of)

    def describe(self) -> str:
        return "the failing statement's operands"


def held_parameters(record: StatementRecord) -> set[str]:
    """The failing function's parameters a candidate's failing function must still have: those
    the failing statement reads (itself or through the function's assignments, `flows`) whose
    value is an object described by its attributes. Dropped, inlined into the caller, they
    would no longer be compared, and the statement could fail the same way on a stand-in
    (`MyNode()` with no children) instead of the program's own object. Values the operands
    pin by position (a list of rows whose bad entry the failing call still reads) are not
    held: `float("n/a")` alone is the reproducer of a row's unparsable field."""
    params = record.get("params") or {}
    return {name for name in record.get("flows") or () if isinstance(params.get(name), dict) and "fields" in params[name]}


def varying_note(varying: frozenset[str], module: str | None = None) -> str:
    """What the user is told when the original's two runs disagree on some operands ("" if none);
    `module`: the file of the record's `module` part, named where its operands are among them."""
    if not varying:
        return ""
    shown = _names(varying, "")
    inner = _names(varying, "module.")
    if inner and module:
        shown = "; ".join(part for part in (shown, f"{inner} in {module}") if part)
    return (f"what the failing statement reads differs between two runs of the original ({shown or 'some operands'}); "
            "those values are not compared")


def _names(varying: frozenset[str], prefix: str) -> str:
    """The first few names read (`reads.X...`, `params.X...`, after `prefix`) among `varying`, shown."""
    names = sorted({path[len(prefix):].split(".")[1] for path in varying
                    if path.startswith((f"{prefix}reads.", f"{prefix}params."))})
    return ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")


__all__ = ["StatementRule", "differences", "flat", "held_parameters", "statement_source", "varying_note", "varying_paths"]

"""Seeding calls are evidence of intent: kept while what they seed is still used.

`torch.manual_seed(1337)` is why a program's random model fails the same way
in every run. A reduction judges a candidate by one run: a candidate without
the seed fails in about half of its runs, and is accepted whenever its one run
happens to fail; the result is then flaky where the original was not (the
final check's repeated runs catch that, `Reduction._verify_standalone`, and go
back to an older text -- at the cost of everything reduced since). So, when
the original failed in every run, each seeding statement is protected like
frozen code (`engine/rules/protection.respects_frozen`): no edit removes or changes
it, its seed literal included (the failure may depend on the value), for as
long as what it seeds is still used elsewhere in the text. Where the seed comes
from a name or an attribute (`set_seed(cfg.seed)`, `torch.manual_seed(args.seed)`),
the literal values the program gives that name are protected with it: a class's
`seed: int = 7`, `seed = 7`, `def set_seed(seed=7)`, `Config(seed=7)`, argparse's
`add_argument("--seed", default=7)` (by the name alone: a `seed = 3` elsewhere
stays too). Before, `seed: int = 7` became `seed: int = 1` in a reproducer that
still called `set_seed(cfg.seed)`. Once the program
no longer uses `random` (or `np`, `torch`, the generator bound), the seed goes
with the rest: no dead `random.seed(0)` in a reproducer that draws nothing.

Only where the failure depends on them: after the original's checks, the original runs
`SEEDLESS_RUNS` times with each of those seeding statements made a `pass`
(`without_seeds`, `lifecycle/original.py`); when every run still fails the same way (the same
line, place and operands), nothing is protected and the seeds, with the argument plumbing
that feeds them, go like any other code (a shape error keeps no `--seed`). The final check's
repeated runs still stand behind that.

An implicit protection, recomputed from each text, rather than `# autodd:
freeze` comments written into it: nothing to remove from the result, and it
lapses by itself when its module is gone. Unlike frozen code, a seed is not
required to run (a seed in a function no longer called is dead code the
statements pass may remove with the function only once nothing else uses the
module).

Recognised: a call statement or an assignment whose callee ends in one of
`SEEDING` (`random.seed(0)`, `np.random.seed(0)`, `torch.manual_seed(0)`,
`torch.cuda.manual_seed_all(0)`, `tf.random.set_seed(0)`,
`rng = np.random.default_rng(0)`, `g = torch.Generator().manual_seed(0)`,
`key = jax.random.PRNGKey(0)`, `pl.seed_everything(0)`), with a seed given
(`random.seed()` seeds from the clock: no intent).
"""

from __future__ import annotations

import ast

from autodd_lsp.syntax.source import Source, Span

SEEDLESS_RUNS = 3  # runs of the original without its seeds that tell whether the failure needs them
SEEDING = frozenset({
    "seed", "manual_seed", "manual_seed_all", "set_seed", "seed_everything", "default_rng",
    "RandomState", "PRNGKey", "key",
})


def seed_spans(source: Source) -> list[Span]:
    """The spans of the seeding statements of `source` whose seeded names are still used elsewhere,
    and of the literal values they read through a name."""
    spans, read = [], set()
    for stmt in seeding_statements(source):
        spans.append(source.span(stmt))
        read |= _read_by(stmt.value)  # type: ignore[attr-defined]  # a seeding statement has a call value
    return spans + _literal_values(source, read)


def without_seeds(source: Source) -> str | None:
    """`source`'s text with each seeding statement whose seeded names are still used (`seed_spans`)
    made a `pass` on the same lines (so every other line keeps its number); None: it has none."""
    statements = seeding_statements(source)
    if not statements:
        return None
    text = source.text
    for stmt in sorted(statements, key=lambda s: source.span(s)[0], reverse=True):
        start, end = source.span(stmt)
        text = text[:start] + "pass" + "\n" * text[start:end].count("\n") + text[end:]
    return text


def seeding_statements(source: Source) -> list[ast.stmt]:
    """The seeding statements of `source` whose seeded names are still used elsewhere."""
    found: list[tuple[ast.stmt, set[str]]] = []
    for node in ast.walk(source.tree):
        call = _seeding_call(node)
        if call is None or not isinstance(node, ast.stmt):
            continue
        if isinstance(node, ast.Expr):
            root = _root(call.func)
            roots = {root} if root is not None else set()
        else:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
            roots = {t.id for t in targets if isinstance(t, ast.Name)}
        if roots:
            found.append((node, roots))
    if not found:
        return []
    uses = _name_counts(source.tree)
    return [stmt for stmt, roots in found
            if any(uses.get(root, 0) > _name_counts(stmt).get(root, 0) for root in roots)]


def _read_by(call: ast.Call) -> set[str]:
    """The names and attributes (`seed` of `cfg.seed`) a seeding call's arguments read."""
    found = set()
    for argument in [*call.args, *(k.value for k in call.keywords)]:
        for node in ast.walk(argument):
            if isinstance(node, ast.Name):
                found.add(node.id)
            elif isinstance(node, ast.Attribute):
                found.add(node.attr)
    return found


def _literal_values(source: Source, names: set[str]) -> list[Span]:
    """The spans of the literal values the program gives those names: `seed = 7`, a class's
    `seed: int = 7`, `self.seed = 7`, `def set_seed(seed=7)`, `Config(seed=7)`, and argparse's
    `add_argument("--seed", default=7)`."""
    if not names:
        return []
    spans = []

    def keep(value: ast.expr | None) -> None:
        if value is not None and _is_literal(value):
            spans.append(source.span(value))

    for node in ast.walk(source.tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_identifier(t) in names for t in targets):
                keep(node.value)
        elif isinstance(node, ast.arguments):
            positional = [*node.posonlyargs, *node.args]
            for arg, default in zip(positional[len(positional) - len(node.defaults):], node.defaults, strict=True):
                if arg.arg in names:
                    keep(default)
            for arg, maybe in zip(node.kwonlyargs, node.kw_defaults, strict=True):
                if arg.arg in names:
                    keep(maybe)
        elif isinstance(node, ast.Call):
            options = {a.value.lstrip("-").replace("-", "_") for a in node.args
                       if isinstance(a, ast.Constant) and isinstance(a.value, str)}
            argparse = isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument" and options & names
            for keyword in node.keywords:
                if keyword.arg in names or (argparse and keyword.arg == "default"):
                    keep(keyword.value)
    return spans


def _identifier(target: ast.expr) -> str | None:
    return target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else None


def _is_literal(value: ast.expr) -> bool:
    """A number or a string as written: `7`, `-1`, `"42"`."""
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.USub, ast.UAdd)):
        value = value.operand
    return isinstance(value, ast.Constant) and isinstance(value.value, (int, float, str)) and not isinstance(value.value, bool)


def _seeding_call(node: ast.AST) -> ast.Call | None:
    if not isinstance(node, (ast.Expr, ast.Assign, ast.AnnAssign)):
        return None
    value = node.value
    if not isinstance(value, ast.Call) or not (value.args or value.keywords):
        return None
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if name not in SEEDING or (name in ("seed", "key") and not isinstance(func, ast.Attribute)):
        return None  # a function of the program's own called `seed(...)`: not known to seed anything
    return value


def _root(func: ast.expr) -> str | None:
    """The name an attribute chain starts from: `np` of `np.random.seed`."""
    while isinstance(func, (ast.Attribute, ast.Call)):
        func = func.value if isinstance(func, ast.Attribute) else func.func
    return func.id if isinstance(func, ast.Name) else None


def _name_counts(tree: ast.AST) -> dict[str, int]:
    """How often each name occurs in `tree`; a def or class counts as a use of its name
    (`set_seed(0)` of the program's own `def set_seed`)."""
    counts: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            counts[node.id] = counts.get(node.id, 0) + 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            counts[node.name] = counts.get(node.name, 0) + 1
    return counts

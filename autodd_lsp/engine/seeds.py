"""Seeding calls are evidence of intent: kept while what they seed is still used.

`torch.manual_seed(1337)` is why a program's random model fails the same way
in every run. A reduction judges a candidate by one run: a candidate without
the seed fails in about half of its runs, and is accepted whenever its one run
happens to fail; the result is then flaky where the original was not (the
final check's repeated runs catch that, `Reduction._verify_standalone`, and go
back to an older text -- at the cost of everything reduced since). So, when
the original failed in every run, each seeding statement is protected like
frozen code (`engine/protection.respects_frozen`): no edit removes or changes
it, its seed literal included (the failure may depend on the value), for as
long as what it seeds is still used elsewhere in the text. Once the program
no longer uses `random` (or `np`, `torch`, the generator bound), the seed goes
with the rest: no dead `random.seed(0)` in a reproducer that draws nothing.

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

SEEDING = frozenset({
    "seed", "manual_seed", "manual_seed_all", "set_seed", "seed_everything", "default_rng",
    "RandomState", "PRNGKey", "key",
})


def seed_spans(source: Source) -> list[Span]:
    """The spans of the seeding statements of `source` whose seeded names are still used elsewhere."""
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
    spans = []
    for stmt, roots in found:
        own = _name_counts(stmt)
        if any(uses.get(root, 0) > own.get(root, 0) for root in roots):
            spans.append(source.span(stmt))
    return spans


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

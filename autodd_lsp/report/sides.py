"""The bug report's "works with A, fails with B" section (`--passes-with`, `--passes-with-env`).

Names both environments (A: where the reproducer passes; B: where it fails,
the interpreter that ran candidates) and the versions of the packages the
reproducer imports on each side, the ones that differ first: a regression
between two releases is read off the first rows. Side A is probed as B is
(`bugreport.probe_environment`), with its interpreter and its variables.
"""

from __future__ import annotations

from typing import Any

from autodd_lsp.engine import ReduceOptions
from autodd_lsp.engine.candidate.passing_side import describe_side, parse_env


def side_a(options: ReduceOptions) -> tuple[str, dict[str, str]] | None:
    """Side A's interpreter and variables, or None when the reduction had none."""
    if not (options.passes_with or options.passes_with_env):
        return None
    return options.passes_with or options.python, parse_env(options.passes_with_env)


def sides_section(options: ReduceOptions, a_side: Any, b_side: Any) -> list[str]:
    """The section's lines (with a blank line after), or none without a side A; `a_side` and
    `b_side` are `bugreport.Environment`s probed on each side."""
    side = side_a(options)
    if side is None:
        return []
    python, env = side
    lines = [
        "## Works with A, fails with B",
        "",
        f"- A (passes): `{describe_side(python, env)}`" + (f", Python {a_side.python}" if a_side.python else ""),
        f"- B (fails): `{options.python}`" + (f", Python {b_side.python}" if b_side.python else ""),
        "",
    ]
    if a_side.error or b_side.error:
        return [*lines, f"Package versions not determined ({a_side.error or b_side.error}).", ""]
    versions_a = {p.name: _versions(p) for p in a_side.packages}
    versions_b = {p.name: _versions(p) for p in b_side.packages}
    names = [n for n in a_side.imports if n in versions_a or n in versions_b]
    names.sort(key=lambda n: versions_a.get(n) == versions_b.get(n))  # differences first, stable otherwise
    rows = [f"| `{n}` | {versions_a.get(n, 'not found')} | {versions_b.get(n, 'not found')} |"
            + (" differs |" if versions_a.get(n) != versions_b.get(n) else " |") for n in names]
    return [*lines, "| module | A | B | |", "|---|---|---|---|", *rows, ""]


def _versions(package: Any) -> str:
    distributions = getattr(package, "distributions", ())
    return ", ".join(f"{d} {v}" for d, v in distributions) or getattr(package, "where", "") or "?"


__all__ = ["side_a", "sides_section"]

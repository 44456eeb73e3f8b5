"""The bug report's "works with A, fails with B" section (`--passes-with`, `--passes-with-env`).

Names both environments (A: where the reproducer passes; B: where it fails,
the interpreter that ran candidates) and the versions of the packages the
reproducer imports on each side, the ones that differ first: a regression
between two releases is read off the first rows. Side A is probed as B is
(`bugreport.probe_environment`), with its interpreter and its variables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autodd_lsp.engine import ReduceOptions
from autodd_lsp.engine.passing_side import describe_side, parse_env

if TYPE_CHECKING:
    from autodd_lsp.report.bugreport import Environment


def sides_section(text: str, options: ReduceOptions, folder: str, b_side: Environment) -> list[str]:
    """The section's lines (with a blank line after), or none without a side A."""
    if not (options.passes_with or options.passes_with_env):
        return []
    from autodd_lsp.report.bugreport import probe_environment

    env = parse_env(options.passes_with_env)
    python = options.passes_with or options.python
    a_side = probe_environment(text, python, folder, env=env)
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


def _versions(package: object) -> str:
    distributions = getattr(package, "distributions", ())
    return ", ".join(f"{d} {v}" for d, v in distributions) or getattr(package, "where", "") or "?"


__all__ = ["sides_section"]

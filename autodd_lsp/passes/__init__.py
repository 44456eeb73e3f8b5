"""Rewrite passes, one kind of edit per module, registered in the spec's groups:

1. statements: call the failing function directly, replay the calls the failing instance was given, remove statements (outermost first), flatten compound statements
2. canonicalize: remove parameters together with their arguments
3. simplify: call the failing function directly again (its parameters removed), inline functions called once and variables assigned once, replace
   expressions by a part or a constant
4. slow: shrink literals, remove list elements (arguments, keywords, entries...)
5. tidy: dead `elif` clauses, annotations naming what is gone, unused imports, stale comments, blank lines left behind by removals,
   redundant parentheses, formatting of the statements the reduction touched
   (ruff's range formatting)
"""

from autodd_lsp.passes import (  # noqa: F401  (importing registers the passes)
    annotations,
    calls,
    compound,
    constants,
    dead_clauses,
    elements,
    expressions,
    format,
    imports,
    literals,
    parameters,
    parens,
    replay,
    route,
    route_again,
    stale_comments,
    statements,
    tidy,
    unpacking,
    variables,
)
from autodd_lsp.passes.base import (
    Group,
    PassContext,
    ReductionPass,
    Remembers,
    proposed_edits,
    registered_passes,
)

__all__ = ["Group", "PassContext", "ReductionPass", "Remembers", "proposed_edits", "registered_passes"]

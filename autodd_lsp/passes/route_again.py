"""Call the failing function directly, again once the parameters pass has run (`route.py`'s edit).

A constructor whose arguments were not all recorded (torch_shape's `GatedProjection(cfg)`, a
config object) is `GatedProjection()` once the parameters pass removed them: the route pass,
which runs first of all, could not offer the call then. Offered again here, first in the
simplify group, the route goes before inlining and the finer passes work on it (torch_shape:
428 candidates with the first slot alone, 205 with both).
"""

from __future__ import annotations

from autodd_lsp.passes.base import Group, register
from autodd_lsp.passes.route import CallTheFailingFunction


@register
class CallTheFailingFunctionAgain(CallTheFailingFunction):
    """`CallTheFailingFunction`'s edit, in the simplify group's first slot."""

    name = "call the failing function directly, its parameters removed"
    group = Group.SIMPLIFY
    order = -2  # before inlining: the route it replaces need not be inlined first

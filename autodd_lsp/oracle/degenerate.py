"""Values no real program has: a smaller program that needs them is a wrong answer.

A reducer that may turn any number into 0 and any string into "" ends with
`nn.Linear(0, 0)` fed `torch.randn(0)`, `T.alloc_shared((0, 0), "")`: the
message may survive, but a maintainer answers "invalid input". This module
counts such values in a program text, by kind:

* `zero-sized shape`: the literal 0 as an element of a tuple or list display,
  or as a positional argument of a call whose callee is a known shape taker
  (tensor factories, layers, TileLang buffers, reshapes);
* `empty string`: a "" literal (an empty dtype, an empty name);
* `empty collection`: an empty tuple or list display as a call argument
  (`torch.randn(())`, `T.alloc_shared([], ...)`);
* `literal stand-in`: a literal subscripted, called or with an attribute taken
  where a program had a container, a function or an object (`{}["west"]`,
  `{1: 1}[103]`, `while stack and {}[x]:`, `1[0] += B_shared[tk]`, `0(x)`,
  `(1).shape`): a display or a constant subscripted, a constant called, an
  attribute of a number or a display (a string's methods, `", ".join(...)`,
  are values' own).

The engine rejects a candidate that has more of one kind than the original had
(`more_degenerate`): values the user's own program has are the user's.
"""

from __future__ import annotations

import ast
from collections import Counter, OrderedDict

from autodd_lsp.syntax.chunks import recall, remember, split_chunks
from autodd_lsp.syntax.lines import split_lines
from autodd_lsp.syntax.parsing import parse

SHAPE_TAKERS = frozenset(
    ["randn", "rand", "randint", "zeros", "ones", "empty", "full", "arange", "eye", "tensor", "Tensor", "Buffer", "zeros_like", "ones_like", "empty_like", "new_zeros", "new_ones", "new_empty", "new_full", "view", "reshape", "expand", "repeat", "tile", "permute", "broadcast_to", "resize_", "narrow", "Linear", "Bilinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "Embedding", "EmbeddingBag", "LayerNorm", "GroupNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LSTM", "GRU", "RNN", "MultiheadAttention", "TransformerEncoderLayer", "Dropout", "MaxPool2d", "AvgPool2d", "alloc_shared", "alloc_fragment", "alloc_local", "alloc_var", "alloc_buffer", "decl_buffer", "match_buffer", "Kernel", "ceildiv", "Parallel", "Pipelined"]
)

KINDS = ("zero-sized shape", "empty string", "empty collection", "literal stand-in")


def degenerate_values(tree: ast.AST) -> Counter[str]:
    """How many values of each degenerate kind `tree` holds."""
    found: Counter[str] = Counter()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List)):
            found["zero-sized shape"] += sum(_is_zero(e) for e in node.elts)
        elif isinstance(node, ast.Call):
            if _callee_name(node.func) in SHAPE_TAKERS:
                found["zero-sized shape"] += sum(_is_zero(a) for a in node.args)
            found["empty collection"] += sum(
                isinstance(a, (ast.Tuple, ast.List)) and not a.elts for a in node.args
            )
        elif isinstance(node, ast.Constant) and node.value in ("", b"") and not isinstance(node.value, bool):
            found["empty string"] += 1
        if _stands_in(node):
            found["literal stand-in"] += 1
    found.subtract(dict.fromkeys(KINDS, 0))  # every kind present, possibly 0
    return found


def more_degenerate(candidate: Counter[str], original: Counter[str]) -> str:
    """The first kind `candidate` has more of than `original` ("" if none)."""
    for kind in KINDS:
        if candidate[kind] > original[kind]:
            return kind
    return ""


def _is_literal(node: ast.AST) -> bool:
    return isinstance(node, (ast.Dict, ast.List, ast.Tuple, ast.Set, ast.Constant))


def _stands_in(node: ast.AST) -> bool:
    """A literal subscripted, called, or (but a string) with an attribute taken."""
    if isinstance(node, ast.Subscript):
        return _is_literal(node.value)
    if isinstance(node, ast.Call):
        return _is_literal(node.func)
    if isinstance(node, ast.Attribute):
        value = node.value
        return _is_literal(value) and not (isinstance(value, ast.Constant) and isinstance(value.value, (str, bytes)))
    return False


def _is_zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float) and node.value == 0


def _callee_name(func: ast.AST) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


class DegenerateCounter:
    """`degenerate_values` of many candidate texts, parsing only the top-level chunks
    that changed (a candidate differs from the last in a statement or two).

    Counts add up over chunks. A chunk that does not parse alone (a decorator cut
    from its def, a cut inside a string) is joined with the next until the piece parses.
    """

    CACHE_SIZE = 4096

    def __init__(self) -> None:
        self._cache: OrderedDict[str, Counter[str]] = OrderedDict()

    def count(self, text: str) -> Counter[str] | None:
        """The counts; None if the text does not parse."""
        total: Counter[str] = Counter()
        pending = ""
        for chunk in split_chunks(split_lines(text)):
            pending = chunk.text if not pending else pending + "\n" + chunk.text
            found = self._piece(pending)
            if found is not None:
                total.update(found)
                pending = ""
        if pending:
            return None
        return total

    def _piece(self, text: str) -> Counter[str] | None:
        found = recall(self._cache, text)
        if found is None:
            try:
                found = degenerate_values(parse(text))
            except (SyntaxError, ValueError, RecursionError):
                return None
            remember(self._cache, text, found, self.CACHE_SIZE)
        return found

"""How big a program is: the numbers reported to users and compared in benchmarks."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass

from autodd_lsp.syntax.parsing import parse
from autodd_lsp.wording import counted


@dataclass(frozen=True)
class Size:
    """How big a program is, in the units the summary reports."""

    lines: int
    nodes: int
    tokens: int | None  # None: not counted (tokenizing is slow: the engine never does; benchmarks do)
    chars: int

    def __str__(self) -> str:
        return f"{counted(self.lines, 'non-blank line')}, {counted(self.nodes, 'AST node')}"

_LAYOUT_TOKENS = {
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.COMMENT,
    tokenize.ENDMARKER,
}
_DIGITS = re.compile(r"\d+")


def count_nodes(tree: ast.AST) -> int:
    return sum(1 for _ in ast.walk(tree))


def count_tokens(text: str) -> int:
    try:
        tokens = tokenize.generate_tokens(io.StringIO(text).readline)
        return sum(1 for t in tokens if t.type not in _LAYOUT_TOKENS)
    except (tokenize.TokenError, SyntaxError):
        return len(text.split())


def count_lines(text: str) -> int:
    """Non-blank lines: blank lines are layout, not program."""
    return sum(1 for line in text.splitlines() if line.strip())


def size_of(text: str, tree: ast.AST | None = None, *, tokens: bool = False) -> Size:
    tree = tree if tree is not None else parse(text)
    return Size(
        lines=count_lines(text),
        nodes=count_nodes(tree),
        tokens=count_tokens(text) if tokens else None,
        chars=len(text),
    )


def string_chars(text: str) -> int:
    """Characters inside string literals (quotes and prefixes excluded), found without tokenizing."""
    total = 0
    for token in _STRING_TOKENS.findall(text):
        if token[0] != "#":
            total += len(token) - (6 if token[:3] in ('"""', "'''") and len(token) >= 6 else 2)
    return total


# A tensor as autodd_lsp.values writes the value of one: `torch.zeros((16, 24), dtype=torch.int64)`.
TENSOR_VALUE = re.compile(r"torch\.zeros\(\([\d, ]*\), dtype=torch\.\w+(?:, device='[\w:]*')?\)")


def value_chars(text: str) -> int:
    """Characters of literal values beyond the first: string contents, and recorded tensor
    values (which count as one character, like a number)."""
    total = string_chars(text)
    if "torch.zeros((" in text:
        total += sum(len(m) - 1 for m in TENSOR_VALUE.findall(text))
    return total


# Comments first (a quote inside one starts nothing), then the four kinds of quotes.
_STRING_TOKENS = re.compile(
    r"#[^\n]*"
    r"|'''(?:\\.|[^\\])*?'''"
    r'|"""(?:\\.|[^\\])*?"""'
    r"|'(?:\\.|[^\\'\n])*'"
    r'|"(?:\\.|[^\\"\n])*"',
    re.DOTALL,
)


def order_key(text: str) -> tuple[int, int, int]:
    """A cheap well-founded order: every accepted step must lower it, so reduction ends.

    Code length first: the text's length without the contents of its literal
    values (`value_chars`), so that `cfg.dtype` may become the `"float16"` it
    was, and a data pipeline the tensor `torch.zeros((16, 24), dtype=torch.int64)`
    it fed (values the original had), although they are longer; then the length
    itself (lines dropped from a string); then the sum of integer literals (128 to 64).
    """
    return len(text) - value_chars(text), len(text), sum(int(d[:18]) for d in _DIGITS.findall(text))

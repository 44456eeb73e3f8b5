"""Re-indenting a block of statements without touching the inside of strings."""

from __future__ import annotations

import io
import tokenize


def reindent(block: str, old: str, new: str) -> str:
    """Replace the leading `old` indentation of each line of `block` by `new`.

    Lines inside a multi-line string are left alone (their text is the string's
    value), and so are lines that do not start with `old` (continuation lines of
    a bracketed expression, blank lines).
    """
    if old == new:
        return block
    protected = string_interior_lines(block)
    lines = block.splitlines(keepends=True)
    out = []
    for number, line in enumerate(lines, start=1):
        if number in protected or not line.strip():
            out.append(line)
        elif line.startswith(old):
            out.append(new + line[len(old):])
        else:
            out.append(line)
    return "".join(out)


_FSTRING_START = getattr(tokenize, "FSTRING_START", -1)
_FSTRING_END = getattr(tokenize, "FSTRING_END", -1)


def string_interior_lines(block: str) -> set[int]:
    """1-based numbers of lines that begin inside a string token."""
    if '"""' not in block and "'''" not in block and "\\\n" not in block:
        return set()
    protected: set[int] = set()
    fstring_starts: list[int] = []  # Python 3.12+ splits f-strings into several tokens
    try:
        for token in tokenize.generate_tokens(io.StringIO(block).readline):
            if token.type == _FSTRING_START:
                fstring_starts.append(token.start[0])
                continue
            if token.type == _FSTRING_END and fstring_starts:
                first = fstring_starts.pop()
            elif token.type == tokenize.STRING:
                first = token.start[0]
            else:
                continue
            protected.update(range(first + 1, token.end[0] + 1))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return protected

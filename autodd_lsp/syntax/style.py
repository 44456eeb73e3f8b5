"""A program's writing conventions, read from its text: the quotes its strings mostly use, its indentation.

Pure functions of text (tokens only, no tree), so that whatever writes code into a
program (a pass offering a recorded value, the formatter of touched statements)
writes it the way the program's author did.
"""

from __future__ import annotations

import io
import tokenize

_FSTRING_START = getattr(tokenize, "FSTRING_START", -1)


def quote_style_of(original: str) -> str:
    """The quotes the original's plain strings mostly use: 'double', 'single', or 'preserve' on a tie."""
    counts = {'"': 0, "'": 0}
    try:
        for token in tokenize.generate_tokens(io.StringIO(original).readline):
            if token.type in (tokenize.STRING, _FSTRING_START):
                body = token.string.lstrip("rRbBuUfFtT")
                if body[:3] not in ('"""', "'''") and body[:1] in counts:
                    counts[body[0]] += 1
    except (tokenize.TokenError, SyntaxError):
        pass
    if counts['"'] == counts["'"]:
        return "preserve"
    return "double" if counts['"'] > counts["'"] else "single"


def indentation_of(original: str) -> str:
    """The original's first indentation: 'tab', or its width in spaces (ruff re-indents the
    whole file, outside the range too, when its setting differs from the file's)."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(original).readline):
            if token.type == tokenize.INDENT:
                if "\t" in token.string:
                    return "tab"
                return str(min(16, len(token.string))) if token.string else "4"
    except (tokenize.TokenError, SyntaxError):
        pass
    return "4"

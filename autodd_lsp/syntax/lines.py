"""Lines as Python numbers them: the one definition of a line break.

Python's tokenizer, `ast` line numbers and LSP all end lines at \\n, \\r\\n or
\\r, and at nothing else (\\f, \\v, \\x1c, \\u2028 ... are not line breaks,
though `str.splitlines` splits at them). The engine, the freeze grammar and
the language server all split text here, so that a line number means the same
line everywhere.
"""

from __future__ import annotations

import re

LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """The lines of `text` without their line breaks, numbered as `ast` numbers them; "" gives [""]."""
    return LINE_BREAK.split(text) if "\r" in text else text.split("\n")


def split_lines_keepends(text: str) -> list[str]:
    """The lines of `text` with their line breaks; the last one may have none ("" gives [])."""
    pieces: list[str] = []
    start = 0
    for match in LINE_BREAK.finditer(text):
        pieces.append(text[start : match.end()])
        start = match.end()
    if start < len(text):
        pieces.append(text[start:])
    return pieces

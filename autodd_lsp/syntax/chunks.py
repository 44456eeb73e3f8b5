"""A module cut into top-level chunks, so that work on it can be redone per chunk.

Reduction and typing both change one top-level statement at a time: parsing
(the freeze grammar) and compiling (candidates) cache their results per chunk.

The text is cut before each line that starts with code in column 0. Why the
pieces equal the whole: a cut inside a string, a bracket or after a
backslash leaves the chunk above it unable to parse. So when every chunk
parses, every cut sat at the start of a top-level logical line. When a chunk
fails, its user falls back to the rest of the text, or the whole of it.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass

# Lines that continue the statement above even in column 0.
_CONTINUATION = re.compile(r"(else|elif|except|finally)\b")


@dataclass(frozen=True)
class Chunk:
    first: int  # 1-based line numbers, inclusive
    last: int
    text: str  # its lines joined by "\n"


def split_chunks(lines: list[str]) -> list[Chunk]:
    """Cut before each column-0 code line that can start a statement.

    The first chunk holds the file's header: comments, the docstring and the
    `from __future__` imports (which must stay first, and change how the rest
    compiles). Column-0 lines of triple-quoted strings (docstrings!) are told
    apart by a quick count of the quotes; when the count is fooled, a chunk
    fails to parse and the caller falls back to the rest, or the whole, text.
    """
    starts = [0]
    in_header = True  # no code yet but the docstring and __future__ imports
    decorated = False  # the code line above is a decorator: keep it with its def
    open_quote = None  # the triple quote of a string that runs past this line
    for index, line in enumerate(lines):
        inside = open_quote is not None
        if '"""' in line or "'''" in line:
            open_quote = _quote_after(line, open_quote)
        if inside or not line or line[0] in " \t\f#)]}":
            continue
        if in_header and (line[0] in "\"'\ufeff" or line.startswith("from __future__")):
            continue
        if in_header:
            in_header = False
        elif not decorated and not _CONTINUATION.match(line):
            starts.append(index)
        decorated = line[0] == "@"
    bounds = zip(starts, [*starts[1:], len(lines)], strict=False)
    return [Chunk(lo + 1, hi, "\n".join(lines[lo:hi])) for lo, hi in bounds]


def _quote_after(line: str, open_quote: str | None) -> str | None:
    """Which triple quote is still open at the end of `line`."""
    position = 0
    while True:
        if open_quote is None:
            found = [(line.find(q, position), q) for q in ('"""', "'''")]
            found = [(at, q) for at, q in found if at != -1]
            if not found:
                return None
            position, open_quote = min(found)
            position += 3
        else:
            at = line.find(open_quote, position)
            if at == -1:
                return open_quote
            position, open_quote = at + 3, None


# Least-recently-used caches. Shared by threads (candidates compile in parallel): each
# step is atomic under the GIL, and a key evicted by another thread in between is fine.


def recall(cache: OrderedDict, key):
    value = cache.get(key)
    if value is not None:
        try:
            cache.move_to_end(key)
        except KeyError:
            pass
    return value


def remember(cache: OrderedDict, key, value, size: int) -> None:
    cache[key] = value
    try:
        cache.move_to_end(key)
        while len(cache) > size:
            cache.popitem(last=False)
    except KeyError:
        pass

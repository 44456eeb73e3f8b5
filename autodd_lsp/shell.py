"""Commands as a person would type them: one shell word each, double quotes where they suffice.

`shlex.quote` is correct but hard to read for a message with a quote in it
(`'KeyError: '"'"'west'"'"''`). The commands AutoDD prints are meant to be
copied: a word that needs quoting gets double quotes when nothing inside is
special to the shell in double quotes (`$`, a backquote, `\\`, `"`, `!`),
otherwise `shlex.quote`'s single quotes.
"""

from __future__ import annotations

import shlex

_SPECIAL_IN_DOUBLE_QUOTES = set('$`\\"!')


def shell_word(word: str) -> str:
    """`word` quoted for a POSIX shell, as readably as is safe."""
    quoted = shlex.quote(word)
    if quoted == word or _SPECIAL_IN_DOUBLE_QUOTES & set(word):
        return quoted
    return f'"{word}"'


def shell_command(words: list[str]) -> str:
    return " ".join(shell_word(word) for word in words)

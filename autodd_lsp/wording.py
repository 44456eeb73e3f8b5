"""Counted nouns for what the tools print: "1 candidate", "2 candidates", "1 non-blank line".

A leaf module (no imports of ours) so that every layer that words a number, from
`syntax.metrics` up to the CLI, says it the same way.
"""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and the noun, singular for exactly 1: counted(1, "candidate") -> "1 candidate"."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"

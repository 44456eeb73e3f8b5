"""On a terminal, a pick among the suggested commands that starts the chosen one at once.

`autodd SOURCE` without a failure to keep prints the commands it could run; when
both standard input and standard error are a terminal, the person picks one by
its number (Enter: the first) and it runs in the same process, as if typed.
Without a terminal (a pipe, a script, CI) the commands are only printed: nothing
waits for input that will not come.
"""

from __future__ import annotations

import sys
from typing import TextIO

from autodd_lsp.shell import shell_command


def interactive(stdin: TextIO | None = None, stream: TextIO | None = None) -> bool:
    """Whether a person is there to pick: stdin and the stream the suggestions go to are terminals."""
    stdin, stream = stdin or sys.stdin, stream or sys.stderr
    try:
        return stdin.isatty() and stream.isatty()
    except (AttributeError, ValueError):
        return False


def pick(commands: list[list[str]], stdin: TextIO | None = None, stream: TextIO | None = None) -> list[str] | None:
    """Show `commands` (each the words after `autodd`) numbered; the one picked, or None (q, EOF, Ctrl-C)."""
    stdin, stream = stdin or sys.stdin, stream or sys.stderr
    for number, words in enumerate(commands, start=1):
        print(f"  {number}) autodd {shell_command(words)}", file=stream)
    while True:
        print(f"autodd: run which? [1-{len(commands)}, Enter: 1, q: none] ", end="", file=stream, flush=True)
        try:
            answer = stdin.readline()
        except KeyboardInterrupt:
            print(file=stream)
            return None
        if not answer or answer.strip().lower() in ("q", "quit", "n", "no"):
            return None
        choice = answer.strip() or "1"
        if choice.isdigit() and 1 <= int(choice) <= len(commands):
            return commands[int(choice) - 1]
        print(f"autodd: answer a number from 1 to {len(commands)}, or q", file=stream)

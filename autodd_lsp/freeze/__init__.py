"""Freeze annotations: the one grammar shared by the reducer and the editor.

    stmt  # autodd: freeze            protects that statement
    # autodd: freeze-start            protects the statements between the markers
    ...
    # autodd: end-freeze
    with __freeze__: ...              protects the with statement (explicit form)
    x = __freeze__(expr)              protects that call expression

`parse_freeze(text)` never executes user code. The engine protects every
region in `FreezeInfo.regions`; the language server shows `FreezeInfo.problems`
as diagnostics and uses `freeze_edits` / `unfreeze_edits` for its code actions.

Positions: lines are 1-based, columns are 0-based *character* (code point)
offsets into the line, ends are exclusive -- never UTF-8 byte offsets.
"""

from autodd_lsp.freeze.edit import apply_edits, freeze_edits, unfreeze_edits
from autodd_lsp.freeze.model import (
    FreezeInfo,
    FrozenRegion,
    Problem,
    TextEdit,
    TextRange,
    problems_text,
)
from autodd_lsp.freeze.parse import parse_freeze

__all__ = [
    "FreezeInfo",
    "FrozenRegion",
    "Problem",
    "TextEdit",
    "TextRange",
    "apply_edits",
    "freeze_edits",
    "parse_freeze",
    "problems_text",
    "unfreeze_edits",
]

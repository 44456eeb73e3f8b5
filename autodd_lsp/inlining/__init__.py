"""The program's own modules, inlined into one file (see `inline.py`)."""

from autodd_lsp.inlining.inline import Inlined, inline_local_modules

__all__ = ["Inlined", "inline_local_modules"]

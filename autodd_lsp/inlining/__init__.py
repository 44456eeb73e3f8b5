"""The program's own modules, inlined into one file (see `inline.py`; `checks.py` keeps a module's
own failing check whole)."""

from autodd_lsp.inlining.checks import freeze_check
from autodd_lsp.inlining.inline import Inlined, inline_local_modules

__all__ = ["Inlined", "freeze_check", "inline_local_modules"]

"""The program's own modules, inlined into one file (see `inline.py`, which decides; `renaming.py`
edits the text, `names.py` reads what a tree binds; `checks.py` keeps a module's own failing check
whole; `pruning.py` leaves out what the program does not use of them); a test's conftest.py files
(`conftest.py`)."""

from autodd_lsp.inlining.checks import freeze_check
from autodd_lsp.inlining.conftest import inline_conftests
from autodd_lsp.inlining.inline import Inlined, inline_local_modules
from autodd_lsp.inlining.pruning import prune_unused

__all__ = ["Inlined", "freeze_check", "inline_conftests", "inline_local_modules", "prune_unused"]

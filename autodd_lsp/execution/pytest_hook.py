"""Runs INSIDE a probed test file, right after `statement_hook.py` (`statement_source` joins the two
sources and calls `register(_record, _write)`): pytest reports a test's exception itself and never
calls `sys.excepthook`, so the failing statement's record is written from a plugin instead.

Standalone, like the statement hook (no autodd import, Python 3.9 syntax). The plugin is registered
with the pytest that is importing the probed file: its collection's frames hold the `config` (a
local `config`, or `self.config` of the module node). Its `pytest_exception_interact`, which pytest
calls for each test that fails, writes the record of the test's exception with the probed file as
the program (`main`). Nothing happens when no pytest runs, or when its frames are not found.
"""

import sys


class _Plugin:
    def __init__(self, main, record, write):
        self.main, self.record, self.write = main, record, write

    def pytest_exception_interact(self, node, call, report):
        try:
            excinfo = getattr(call, "excinfo", None)
            self.write(self.record(excinfo.tb, self.main) if excinfo is not None else None)
        except Exception:  # noqa: BLE001 - never change what the test does
            pass


def register(record, write):
    """`record(tb, main)` makes a record, `write(record)` writes its marker line (the statement hook's)."""
    if "_pytest" not in sys.modules:
        return
    try:
        probed = sys._getframe(2)  # the probed file's module code, which exec'd the hooks' source
        main, frame = probed.f_code.co_filename, probed.f_back
        while frame is not None:
            config = frame.f_locals.get("config") or getattr(frame.f_locals.get("self"), "config", None)
            manager = getattr(config, "pluginmanager", None)
            if manager is not None and hasattr(manager, "register"):
                manager.register(_Plugin(main, record, write), "autodd-statement")
                return
            frame = frame.f_back
    except Exception:  # noqa: BLE001 - a pytest whose frames differ: no record, as before
        pass

"""AutoDD: shrink a failing Python program to a small standalone reproducer.

`__freeze__` is the run-time half of the explicit freeze annotations: the reducer
keeps whatever it wraps, and at run time it does nothing.

    from autodd_lsp import __freeze__
    with __freeze__:
        setup()
    x = __freeze__(compute())

`minimize` is the library API (`autodd_lsp/engine/library.py`): reduce a source
text with a Python predicate, no processes. It is imported on first use, so that a
program that imports `__freeze__` does not load the engine.

    from autodd_lsp import minimize
    small = minimize(source_text, lambda text: "boom" in text)
"""

from typing import Any

__version__ = "0.1.0"


class _Freeze:
    """Identity at run time: `with __freeze__:` runs its body, `__freeze__(x)` is `x`."""

    def __call__(self, value=None, /):
        return value

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False

    def __repr__(self):
        return "__freeze__"


__freeze__ = _Freeze()



def __getattr__(name: str) -> Any:
    if name == "minimize":
        from autodd_lsp.engine.library import minimize

        return minimize
    raise AttributeError(f"module 'autodd_lsp' has no attribute {name!r}")


__all__ = ["__freeze__", "__version__", "minimize"]

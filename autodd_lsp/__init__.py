"""AutoDD: shrink a failing Python program to a small standalone reproducer.

`__freeze__` is the run-time half of the explicit freeze annotations: the reducer
keeps whatever it wraps, and at run time it does nothing.

    from autodd_lsp import __freeze__
    with __freeze__:
        setup()
    x = __freeze__(compute())
"""

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

__all__ = ["__freeze__", "__version__"]

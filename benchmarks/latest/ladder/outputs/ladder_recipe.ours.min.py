# The size ladder's multi-file rung (benchmarks/ladder.py): a recipe scaler over two sibling modules that
# the builder writes beside it, the interpreter's own fractions.py as `rational.py` and textwrap.py as
# `wrapping.py`, verbatim (~750 and ~500 lines on Python 3.11).
# The bug: a mixed number ("1 1/2 tsp") reaches Fraction() whole, which takes no mixed numbers.
# Originally contributed by Sjoerd Mullender.
# Significantly modified by Jeffrey Yasskin <jyasskin at gmail.com>.
import re


_RATIONAL_FORMAT = re.compile(r"""
    (?:                                   # followed by
    )
""")


class Fraction:
    # We're immutable, so use __new__ not __init__
    def __new__(cls, numerator=0):
        # Handle construction from strings.
        m = _RATIONAL_FORMAT.match(numerator)
        if m is None:  # autodd: freeze (the check from rational.py:115 that raises the failure)
            raise ValueError('Invalid literal for Fraction: %r' %
                             numerator)

        # If we're not allowed to break long words, and there's already
        # text on the current line, do nothing.  Next time through the
        # main loop of _wrap_chunks(), we'll wind up here again, but
        # cur_len will be zero, so the next line will be entirely
        # devoted to the long word that we can't handle right now.
# -- Loosely related functionality -------------------------------------
def parse_line(line):
    words = line.split()
    for i, word in enumerate(words):
        if word in {'tsp': 'tsp'}:
            return Fraction(' '.join(words[:i]))


title, *lines = """\
Lemon loaf (one 9x5 tin)
1 1/2 tsp baking powder
""".splitlines()
title = [parse_line(line) for line in lines if line]

# The size ladder's multi-file rung (benchmarks/ladder.py): a recipe scaler over two sibling modules that
# the builder writes beside it, the interpreter's own fractions.py as `rational.py` and textwrap.py as
# `wrapping.py`, verbatim (~750 and ~500 lines on Python 3.11).
# The bug: a mixed number ("1 1/2 tsp") reaches Fraction() whole, which takes no mixed numbers.
# Originally contributed by Sjoerd Mullender.
# Significantly modified by Jeffrey Yasskin <jyasskin at gmail.com>.
from decimal import Decimal
import numbers
import re


_RATIONAL_FORMAT = re.compile(r"""
""")


class Fraction(numbers.Rational):
    # We're immutable, so use __new__ not __init__
    def __new__(cls, numerator=0, denominator=None):
        if denominator is None:
            if type(numerator) is int:
                pass

            elif isinstance(numerator, numbers.Rational):
                pass

            elif isinstance(numerator, (float, Decimal)):
                pass

            elif isinstance(numerator, str):
                # Handle construction from strings.
                m = _RATIONAL_FORMAT.match(numerator)
                if m is None:  # autodd: freeze (the check from rational.py:115 that raises the failure)
                    raise ValueError('Invalid literal for Fraction: %r' %
                                     numerator)


def parse_line(line):
    return Fraction(" ".join(line.split()[:2]))


title, *lines = """\
2 cup flour
1 1/2 tsp baking powder
""".splitlines()
ingredients = [parse_line(line) for line in lines if line.strip()]

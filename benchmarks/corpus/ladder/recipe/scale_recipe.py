# The size ladder's multi-file rung (benchmarks/ladder.py): a recipe scaler over two sibling modules that
# the builder writes beside it, the interpreter's own fractions.py as `rational.py` and textwrap.py as
# `wrapping.py`, verbatim (~750 and ~500 lines on Python 3.11).
# The bug: a mixed number ("1 1/2 tsp") reaches Fraction() whole, which takes no mixed numbers.
from rational import Fraction
from wrapping import fill

RECIPE = """\
Lemon loaf (one 9x5 tin)
2 cup flour
3/4 cup sugar
1 1/2 tsp baking powder
1/4 tsp salt
2/3 cup milk
1/2 cup butter
2 each eggs
1 tbsp lemon zest
"""

METHOD = (
    "Heat the oven to 175 C. Whisk the dry ingredients, melt the butter into the milk, beat in the eggs "
    "and the zest, fold the two together and bake for about 50 minutes, until a skewer comes out clean."
)

UNITS = {"cup": "cups", "tsp": "tsp", "tbsp": "tbsp", "each": ""}
TSP_PER = {"tsp": Fraction(1), "tbsp": Fraction(3), "cup": Fraction(48)}


def parse_line(line):
    words = line.split()
    for i, word in enumerate(words):
        if word in UNITS:
            quantity = " ".join(words[:i])
            return Fraction(quantity), word, " ".join(words[i + 1:])
    raise ValueError(f"no unit in {line!r}")


def parse(text):
    title, *lines = text.strip().splitlines()
    return title, [parse_line(line) for line in lines if line.strip()]


def simplest(quantity, unit):
    """Cups under a quarter become tablespoons, tablespoons under one become teaspoons."""
    if unit == "cup" and quantity < Fraction(1, 4):
        return simplest(quantity * TSP_PER["cup"] / TSP_PER["tbsp"], "tbsp")
    if unit == "tbsp" and quantity < 1:
        return quantity * TSP_PER["tbsp"], "tsp"
    return quantity, unit


def show(quantity):
    whole, part = divmod(quantity.numerator, quantity.denominator)
    if part == 0:
        return str(whole)
    fraction = f"{part}/{quantity.denominator}"
    return f"{whole} {fraction}" if whole else fraction


def scale(ingredients, factor):
    out = []
    for quantity, unit, name in ingredients:
        new, new_unit = simplest(quantity * factor, unit)
        out.append((new, new_unit, name))
    return out


def card(title, ingredients, factor):
    lines = [f"{title} x {show(Fraction(factor))}"]
    for quantity, unit, name in scale(ingredients, Fraction(factor)):
        plural = UNITS[unit] if quantity > 1 else unit
        lines.append(f"  {show(quantity):>6} {plural:<5} {name}")
    return "\n".join(lines)


def total_teaspoons(ingredients):
    return sum(q * TSP_PER[u] for q, u, _ in ingredients if u in TSP_PER)


print(fill(METHOD, width=60, initial_indent="Method: ", subsequent_indent="        "))
title, ingredients = parse(RECIPE)
for factor in ("1/2", "1", "3/2"):
    print(card(title, ingredients, factor))
print("dry and wet volume:", show(total_teaspoons(ingredients)), "tsp")

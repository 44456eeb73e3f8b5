"""Price a basket from the command line: a CLI that cannot run without its arguments."""

import argparse
import json
import sys

TIERS = {"basic": 0.0, "silver": 0.05, "gold": 0.1}
TAX = {"de": 0.19, "fr": 0.2, "us": 0.0}
CATALOG = {
    "pen": 1.5,
    "book": 12.0,
    "lamp": 30.0,
    "desk": 120.0,
}


class Basket:
    def __init__(self, items):
        self.items = list(items)

    def subtotal(self):
        return sum(CATALOG[name] * count for name, count in self.items)

    def describe(self):
        return ", ".join(f"{count} x {name}" for name, count in self.items)


def parse_items(text):
    items = []
    for part in text.split(","):
        name, _, count = part.partition(":")
        items.append((name.strip(), int(count or 1)))
    return items


def discount(tier, subtotal):
    rate = TIERS[tier]
    if subtotal > 100:
        rate += 0.02
    return subtotal * rate


def tax(country, amount):
    return amount * TAX[country]


def report(basket, tier, country, verbose):
    subtotal = basket.subtotal()
    off = discount(tier, subtotal)
    due = subtotal - off
    total = due + tax(country, due)
    if verbose:
        print(f"basket: {basket.describe()}")
        print(f"subtotal {subtotal:.2f}, discount {off:.2f}")
    return {"total": round(total, 2), "country": country, "tier": tier}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="pricing")
    parser.add_argument("--items", required=True, help="name:count,...")
    parser.add_argument("--tier", required=True, choices=sorted(TIERS) + ["platinum"])
    parser.add_argument("--country", default="de")
    parser.add_argument("--verbose", action="store_true")
    options = parser.parse_args(argv)
    basket = Basket(parse_items(options.items))
    result = report(basket, options.tier, options.country, options.verbose)
    json.dump(result, sys.stdout)
    print()


main()

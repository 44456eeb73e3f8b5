"""A small inventory system with a consistency check that fails."""

import json
import os
import sys

# Limits the warehouse must respect.
LIMITS = {"max_total": 64, "name": "north", "verbose": False}


def combine(a, b):
    # sums two stock counts
    return a + b


def unused_report(items):
    lines = []
    for item in items:
        lines.append(f"{item}: ok")
    return "\n".join(lines)


class Inventory:
    def __init__(self, items):
        self.items = list(items)

    def total(self):
        return sum(self.items)

    def check(self, limit):
        if self.total() > limit:  # the invariant
            raise ValueError("inventory invariant violated: total above limit")
        return True


def main():
    inventory = Inventory([1, 2, 3, combine(40, 60)])
    print("total is", inventory.total())
    if LIMITS["verbose"]:
        print(json.dumps(LIMITS), file=sys.stderr)
    inventory.check(LIMITS["max_total"])


if __name__ == "__main__":
    main()

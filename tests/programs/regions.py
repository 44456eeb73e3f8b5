from collections import defaultdict

REGION_MANAGERS = {"north": "Alice", "south": "Bob", "east": "Carol"}
ROWS = [
    {"region": "north", "amount": 10, "product": "widget"},
    {"region": "south", "amount": 5, "product": "gadget"},
    {"region": "west", "amount": 7, "product": "widget"},
]


def totals_by(rows, key):
    totals = defaultdict(list)
    for row in rows:
        totals[row[key]].append(row["amount"])
    return {k: sum(v) for k, v in totals.items()}


def manager_for(region):
    return REGION_MANAGERS[region]


def report(rows):
    lines = []
    by_region = totals_by(rows, "region")
    by_product = totals_by(rows, "product")
    for region, total in sorted(by_region.items()):
        manager = manager_for(region)
        lines.append(f"{region:<8}{manager:<8}{total:>6}")
    for product, total in by_product.items():
        lines.append(f"{product}: {total}")
    return "\n".join(lines)


print(report(ROWS))

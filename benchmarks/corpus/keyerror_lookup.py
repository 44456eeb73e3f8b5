"""Quarterly sales report: total the orders per region and name each region's manager.

The manager table has no entry for the "west" region, so formatting the report
raises KeyError: 'west'. Every other step also indexes a dict (columns of a
CSV row, product categories, discounts, per-region counts), so a reducer that
keeps any KeyError can slip to another lookup, another key, another line.
"""

import csv
import io
from collections import defaultdict

RAW_ORDERS = """order_id,region,product,units,unit_price
1001,north,widget,12,2.50
1002,south,gadget,3,19.99
1003,east,widget,7,2.50
1004,north,gizmo,1,149.00
1005,west,gadget,4,19.99
1006,south,widget,20,2.40
1007,east,gizmo,2,149.00
1008,north,gadget,6,18.50
"""

REGION_MANAGERS = {
    "north": "A. Okafor",
    "south": "B. Lindqvist",
    "east": "C. Tanaka",
}

PRODUCT_CATEGORIES = {"widget": "parts", "gadget": "devices", "gizmo": "devices"}
DISCOUNTS = {"parts": 0.05, "devices": 0.0}


def load_orders(text):
    rows = []
    for row in csv.DictReader(io.StringIO(text)):
        row["units"] = int(row["units"])
        row["unit_price"] = float(row["unit_price"])
        rows.append(row)
    return rows


def line_total(row):
    category = PRODUCT_CATEGORIES[row["product"]]
    gross = row["units"] * row["unit_price"]
    return round(gross * (1 - DISCOUNTS[category]), 2)


def group_totals(rows, key):
    totals = defaultdict(float)
    counts = {}
    for row in rows:
        totals[row[key]] += line_total(row)
        counts[row[key]] = counts.get(row[key], 0) + 1
    return totals, counts


def format_region(region, total, count):
    manager = REGION_MANAGERS[region]
    share = f"{count} order" + ("s" if count != 1 else "")
    return f"{region:<6} {manager:<14} {share:>9}  {total:>9.2f}"


def build_report(rows):
    totals, counts = group_totals(rows, "region")
    lines = ["region manager            orders      total"]
    for region in sorted(totals, key=lambda r: -totals[r]):
        lines.append(format_region(region, totals[region], counts[region]))
    by_product, _ = group_totals(rows, "product")
    best = max(by_product, key=by_product.get)
    lines.append(f"best seller: {best} ({by_product[best]:.2f})")
    lines.append(f"grand total: {sum(totals.values()):.2f}")
    return "\n".join(lines)


def main():
    orders = load_orders(RAW_ORDERS)
    print(build_report(orders))


main()

"""Per-site temperature report from the measurements file kept next to this script."""

import csv
import os
import statistics
from collections import defaultdict

import units

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "measurements.csv")


def load(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def temperatures(rows):
    by_site = defaultdict(list)
    for row in rows:
        if not units.is_temperature(row["unit"]):
            continue
        reading = float(row["reading"])
        by_site[row["site"]].append(units.to_celsius(reading, row["unit"]))
    return by_site


def summarize(by_site):
    lines = []
    for site, values in sorted(by_site.items()):
        mean = statistics.mean(values)
        spread = max(values) - min(values)
        lines.append(f"{site:<8} {len(values):>3} readings  mean {mean:6.2f} C  spread {spread:5.2f}")
    return lines


def pressure_note(rows):
    pressures = [row for row in rows if row["unit"] == "kPa"]
    return f"{len(pressures)} pressure readings ({units.describe('kPa')}) skipped"


def main():
    rows = load(DATA)
    print(f"{len(rows)} rows from {os.path.basename(DATA)}")
    for line in summarize(temperatures(rows)):
        print(line)
    print(pressure_note(rows))


main()

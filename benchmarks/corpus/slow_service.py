"""Shipping-quote service whose every run waits half a second for a (simulated) rate server.

The wait is frozen (`# autodd: freeze`): a reducer must keep it, so each
candidate costs ~0.5 s of sleeping, not of CPU. The failure: a parcel to a
zone the surcharge table lacks (`"islands"`) is priced with a negative
weight band, so `quote` raises ValueError. Around it, a realistic amount of
code the failure does not need: parsing, validation, currency rounding,
a summary and a per-carrier report.
"""

import time

time.sleep(0.5)  # autodd: freeze

from dataclasses import dataclass

CARRIERS = {
    "swift": {"base": 4.20, "per_kg": 1.10, "zones": ("domestic", "europe")},
    "atlas": {"base": 6.50, "per_kg": 0.85, "zones": ("domestic", "europe", "world", "islands")},
    "pigeon": {"base": 2.90, "per_kg": 1.75, "zones": ("domestic",)},
}

ZONE_SURCHARGE = {"domestic": 0.0, "europe": 3.5, "world": 9.0}

WEIGHT_BANDS = [(0.0, 1.0), (1.0, 5.0), (5.0, 20.0), (20.0, 70.0)]

ORDERS = """
A-101 swift domestic 0.8
A-102 atlas europe 3.2
A-103 pigeon domestic 1.4
A-104 atlas world 12.0
A-105 swift europe 4.9
A-106 atlas islands 0.9
A-107 pigeon domestic 0.3
"""


@dataclass
class Parcel:
    order: str
    carrier: str
    zone: str
    weight: float


def parse_orders(text):
    parcels = []
    for line in text.strip().splitlines():
        order, carrier, zone, weight = line.split()
        parcels.append(Parcel(order, carrier, zone, float(weight)))
    return parcels


def validate(parcel):
    carrier = CARRIERS.get(parcel.carrier)
    if carrier is None:
        raise LookupError(f"unknown carrier {parcel.carrier}")
    if parcel.zone not in carrier["zones"]:
        raise LookupError(f"{parcel.carrier} does not ship to {parcel.zone}")
    if parcel.weight <= 0:
        raise ValueError(f"{parcel.order}: weight must be positive")


def band_of(weight):
    for index, (low, high) in enumerate(WEIGHT_BANDS):
        if low < weight <= high:
            return index
    return len(WEIGHT_BANDS) - 1


def surcharge(zone):
    return ZONE_SURCHARGE.get(zone, -1.0)


def quote(parcel):
    carrier = CARRIERS[parcel.carrier]
    extra = surcharge(parcel.zone)
    band = band_of(parcel.weight) + int(extra)
    if band < 0:
        raise ValueError(f"no weight band for {parcel.order} ({parcel.zone}, {parcel.weight} kg)")
    price = carrier["base"] + carrier["per_kg"] * parcel.weight + extra + band * 0.5
    return round(price, 2)


def summarize(quotes):
    total = sum(quotes.values())
    cheapest = min(quotes, key=quotes.get)
    dearest = max(quotes, key=quotes.get)
    return f"{len(quotes)} parcels, total {total:.2f}; cheapest {cheapest}, dearest {dearest}"


def by_carrier(parcels, quotes):
    report = {}
    for parcel in parcels:
        report.setdefault(parcel.carrier, []).append(quotes[parcel.order])
    lines = []
    for carrier, prices in sorted(report.items()):
        lines.append(f"{carrier:<7} {len(prices)} parcels, mean {sum(prices) / len(prices):.2f}")
    return "\n".join(lines)


def main():
    parcels = parse_orders(ORDERS)
    quotes = {}
    for parcel in parcels:
        validate(parcel)
        quotes[parcel.order] = quote(parcel)
    print(summarize(quotes))
    print(by_carrier(parcels, quotes))


main()

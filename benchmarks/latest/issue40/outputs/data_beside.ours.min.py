import csv


def temperatures():
    for row in rows:
        reading = float(row["reading"])


rows = csv.DictReader(open("measurements.csv"))
for line in temperatures():
    pass

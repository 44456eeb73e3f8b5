import csv
DATA = 'measurements.csv'

def load(path, *args, **kwargs):
    with open(path) as handle:
        return list(csv.DictReader(handle))

def temperatures(rows, *args, **kwargs):
    for row in rows:
        float(row['reading'])

def main(*args, **kwargs):
    rows = load(DATA)
    for line in temperatures(rows):
        pass
main()
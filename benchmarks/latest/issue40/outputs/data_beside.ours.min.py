import io
import csv


for row in csv.DictReader(io.StringIO("""\
reading
n/a
""")):
    reading = float(row["reading"])

import csv


for row in csv.DictReader(open("measurements.csv")):
    reading = float(row["reading"])

row = {"reading": "n/a"}
reading = float(row["reading"])

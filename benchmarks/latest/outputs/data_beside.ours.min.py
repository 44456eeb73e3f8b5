float("n/a")

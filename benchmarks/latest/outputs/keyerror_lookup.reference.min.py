def group_totals(*args, **kwargs):
    totals = 1
    counts = {}
    return (totals, counts)

def build_report(*args, **kwargs):
    totals, counts = group_totals()
    region = 1
    counts[region]

def main(*args, **kwargs):
    build_report()
main()
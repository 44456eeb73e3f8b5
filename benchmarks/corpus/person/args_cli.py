import argparse

TIERS = {"basic": 0.0, "silver": 0.05, "gold": 0.1}

parser = argparse.ArgumentParser()
parser.add_argument("--tier", required=True, choices=sorted(TIERS) + ["platinum"])
options = parser.parse_args(["--tier", "platinum"])
tier = options.tier
rate = TIERS[tier]

TIERS = {"basic": 0.0, "silver": 0.05, "gold": 0.1}


tier = "platinum"
rate = TIERS[tier]

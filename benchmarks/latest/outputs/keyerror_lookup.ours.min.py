manager = {}["west"]

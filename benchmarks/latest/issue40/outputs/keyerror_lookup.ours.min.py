REGION_MANAGERS = {
    "north": "A. Okafor",
    "south": "B. Lindqvist",
    "east": "C. Tanaka",
}


region = "west"
manager = REGION_MANAGERS[region]

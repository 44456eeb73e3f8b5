# %% [cell 2]
from collections import defaultdict
# %% [cell 5]
out = defaultdict(list)
for station, day, value in [('north', 1, 12.5), ('north', 2, 13.1), ('north', 3, None)]:
    out[station].append((day, value))


# %% [cell 7]
def fill(series):
    values = [value for _, value in series]
    index = 2
    after = values[index + 1]


cleaned = {'north': fill(series) for name, series in out.items()}

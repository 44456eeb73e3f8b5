# %% [cell 7]
values = [12.5, 13.1, None]
index = 2
after = values[index + 1]

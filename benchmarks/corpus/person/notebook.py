def fill(series):
    values = [value for _, value in series]
    for index, value in enumerate(values):
        if value is None:
            before = values[index - 1]
            after = values[index + 1]
            values[index] = (before + after) / 2
    return values


fill([(1, 12.5), (2, 13.1), (3, None)])

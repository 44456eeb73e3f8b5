import ctypes


def read(where, size):
    return ctypes.string_at(where)[:size]  # up to the terminator, then the record's share


relocations = {3: 0}
read(relocations[3], 30)

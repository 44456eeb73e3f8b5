import ctypes


class Arena:
    def read(self, address=None):
        where = address
        return ctypes.string_at(where)[:size]  # up to the terminator, then the record's share


Arena().read()

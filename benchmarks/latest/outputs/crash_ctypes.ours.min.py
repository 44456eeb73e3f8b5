import ctypes


class Arena:
    def read(self, address=None):
        return ctypes.string_at(address)  # up to the terminator, then the record's share


Arena().read()

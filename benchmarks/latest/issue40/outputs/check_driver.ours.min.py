def key(record):
    return record["street"]


class Index:
    def __init__(self):
        self.entries = {}

    def add(self, record):
        self.entries.setdefault(key(record), []).append(record)

    def lookup(self, street, city):
        return self.entries.get(key({"street": street}))

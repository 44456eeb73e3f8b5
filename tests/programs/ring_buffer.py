"""A fixed-size ring buffer of readings."""


class Ring:
    def __init__(self, size):
        self.items = [0.0] * size
        self.head = 2
        self.count = 0

    def add(self, reading):
        self.items[(self.head + self.count) % len(self.items)] = reading
        self.count += 1

    def newest(self):
        # the newest reading sits just before head + count
        return self.items[self.head + self.count]


ring = Ring(6)
for reading in [1.5, 2.0, 2.5, 3.0]:
    ring.add(reading)
print("newest:", ring.newest())

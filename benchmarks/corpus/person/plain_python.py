from dataclasses import dataclass


@dataclass
class Item:
    sku: str
    on_hand: int = 0
    reserved: int = 0


class Inventory:
    def __init__(self):
        self.items = {}
        self.orders = {}

    def item(self, sku):
        if sku not in self.items:
            self.items[sku] = Item(sku)
        return self.items[sku]

    def receive(self, sku, qty):
        item = self.item(sku)
        item.on_hand += qty

    def reserve(self, order_id, sku, qty):
        item = self.item(sku)
        item.reserved += qty
        self.orders[order_id] = (sku, qty)

    def ship(self, order_id):
        sku, qty = self.orders[order_id]
        item = self.items[sku]
        item.reserved -= qty
        item.on_hand -= qty

    def adjust(self, sku, delta, reason):
        # Shrinkage is applied as counted; reservations are reconciled later.
        item = self.item(sku)
        item.on_hand += delta

    def check_invariants(self):
        for item in self.items.values():
            if item.reserved > item.on_hand:
                raise ValueError(
                    f"inventory invariant violated: {item.sku} has {item.reserved} reserved "
                    f"but only {item.on_hand} on hand"
                )


inventory = Inventory()
inventory.receive("B-200", 12)
inventory.reserve("O1", "B-200", 4)
inventory.reserve("O2", "B-200", 3)
inventory.ship("O1")
inventory.adjust("B-200", -6, "damaged")
inventory.check_invariants()

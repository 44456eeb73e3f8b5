from collections import OrderedDict
from dataclasses import dataclass, field


@dataclass
class Item:
    sku: str
    on_hand: int = 0
    reserved: int = 0


@dataclass
class OrderLine:
    sku: str
    qty: int


@dataclass
class Order:
    order_id: str
    lines: list = field(default_factory=list)


class Inventory:
    def __init__(self):
        self.items = OrderedDict()
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
        order = self.orders.setdefault(order_id, Order(order_id))
        order.lines.append(OrderLine(sku, qty))

    def ship(self, order_id):
        order = self.open_order(order_id)
        for line in order.lines:
            item = self.items[line.sku]
            item.reserved -= line.qty
            item.on_hand -= line.qty

    def adjust(self, sku, delta):
        # Shrinkage is applied as counted; reservations are reconciled later.
        item = self.item(sku)
        item.on_hand += delta

    def open_order(self, order_id):
        order = self.orders.get(order_id)
        return order

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
inventory.adjust("B-200", -6)
inventory.check_invariants()

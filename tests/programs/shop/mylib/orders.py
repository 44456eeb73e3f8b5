"""Orders and their lines."""

from dataclasses import dataclass, field


@dataclass
class LineItem:
    sku: str
    quantity: int
    unit_price: float
    unit_cost: float


@dataclass
class Order:
    order_id: int
    customer: str
    items: list = field(default_factory=list)

    def add(self, sku, quantity, unit_price, unit_cost):
        self.items.append(LineItem(sku, quantity, unit_price, unit_cost))
        return self

    def revenue(self):
        return sum(i.quantity * i.unit_price for i in self.items)

    def cost(self):
        return sum(i.quantity * i.unit_cost for i in self.items)

"""Orders by customer: a report that looks up an order id nobody placed."""
from dataclasses import dataclass, field


@dataclass
class Order:
    order_id: int
    customer: str
    items: list = field(default_factory=list)

    def total(self):
        return sum(price for _, price in self.items)


ORDERS = {
    101: Order(101, "ada", [("pen", 2.5), ("ink", 4.0)]),
    102: Order(102, "grace", [("paper", 3.0)]),
}


def report(order_ids):
    lines = []
    for order_id in order_ids:
        order = ORDERS[order_id]
        lines.append(f"{order.order_id} {order.customer}: {order.total():.2f}")
    return "\n".join(lines)


print(report([101, 102, 103]))

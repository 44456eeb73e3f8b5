"""Invoices for a day's orders: the shipping fee was never added to the Order dataclass."""
from dataclasses import dataclass, field


@dataclass
class Customer:
    name: str
    country: str


@dataclass
class Line:
    sku: str
    qty: int
    price: float


@dataclass
class Order:
    order_id: int
    customer: Customer
    lines: list = field(default_factory=list)


VAT = {"DE": 0.19, "FR": 0.20, "NL": 0.21}


def subtotal(order):
    return sum(line.qty * line.price for line in order.lines)


def total(order):
    vat = VAT[order.customer.country]
    return round(subtotal(order) * (1 + vat) + order.shipping, 2)


def invoice(order):
    return f"#{order.order_id} {order.customer.name}: {total(order):.2f}"


ORDERS = [
    Order(1001, Customer("Ada", "DE"), [Line("pen", 3, 2.5), Line("ink", 1, 4.0)]),
    Order(1002, Customer("Grace", "NL"), [Line("paper", 2, 3.0)]),
]

for order in ORDERS:
    print(invoice(order))

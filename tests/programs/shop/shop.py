"""Quote the day's orders."""

from mylib import Order, quote

ORDERS = [
    (101, "acme", "basic", [("bolt", 100, 0.5, 0.2), ("nut", 200, 0.1, 0.04)]),
    (102, "globex", "silver", [("gear", 10, 12.0, 7.5)]),
    (103, "initech", "gold", [("motor", 3, 320.0, 290.0), ("belt", 4, 15.0, 9.0)]),
]


def build(order_id, customer, lines):
    order = Order(order_id, customer)
    for sku, quantity, price, cost in lines:
        order.add(sku, quantity, price, cost)
    return order


def main():
    total = 0.0
    for order_id, customer, tier, lines in ORDERS:
        order = build(order_id, customer, lines)
        price = quote(order, tier)
        print(f"{order_id} {customer:<8} {price:>9.2f}")
        total += price
    print(f"total {total:.2f}")


main()

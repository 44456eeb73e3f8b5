from collections import OrderedDict
from dataclasses import dataclass, field
from enum import Enum


class Kind(Enum):
    RECEIVE = "receive"
    ORDER = "order"
    SHIP = "ship"
    ADJUST = "adjust"


@dataclass
class Command:
    kind: Kind
    args: tuple
    lineno: int


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


def parse_int(token):
    return int(token)


def parse_receive(tokens, lineno):
    return (tokens[0], parse_int(tokens[1]), tokens)


def parse_order(tokens, lineno):
    return (tokens[0], tokens[1], parse_int(tokens[2]))


def parse_order_ref(tokens, lineno):
    return (tokens[0],)


def parse_adjust(tokens, lineno):
    reason = tokens
    return (tokens[0], parse_int(tokens[1]), reason)


ARG_PARSERS = {
    Kind.RECEIVE: parse_receive,
    Kind.ORDER: parse_order,
    Kind.SHIP: parse_order_ref,
    Kind.ADJUST: parse_adjust,
}


class Inventory:
    def __init__(self):
        self.items = OrderedDict()
        self.orders = {}

    def item(self, sku):
        if sku not in self.items:
            self.items[sku] = Item(sku)
        return self.items[sku]

    def receive(self, sku, qty, cost):
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

    def adjust(self, sku, delta, reason):
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


class Interpreter:
    def __init__(self):
        self.inventory = inventory
        self.handlers = {
            Kind.RECEIVE: self.inventory.receive,
            Kind.ORDER: self.inventory.reserve,
            Kind.SHIP: self.inventory.ship,
            Kind.ADJUST: self.inventory.adjust,
        }

    def execute(self, command):
        self.handlers[command.kind](*command.args)
        self.inventory.check_invariants()

    def run(self):
        for command in commands:
            self.execute(command)


commands = []
for lineno, raw in enumerate("""
receive A-100 40 @ 2.50
receive B-200 12 @ 7.25
receive C-300 5 @ 19.99
receive D-400 30 @ 0.80
order O1 B-200 4
order O2 B-200 3
order O3 D-400 12
ship O1
adjust B-200 -6 damaged
""".splitlines()):
    line = raw.split("#")[0]
    if not line:
        continue
    head, *tokens = line.split()
    kind = Kind(head)
    commands.append(Command(kind, ARG_PARSERS[kind](tokens, lineno), lineno))
inventory = Inventory()
Interpreter().run()

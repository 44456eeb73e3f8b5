"""A small warehouse inventory system driven by a command script.

Benchmark input for AutoDD: pure Python, no third-party imports, runs in a
few milliseconds. Stock adjustments skip the reservation check, so a later
invariant check fails with "inventory invariant violated: ...".
The entry point is called at module level so exec-based tools reproduce it.
"""

import re
from collections import defaultdict, OrderedDict
from dataclasses import dataclass, field
from enum import Enum

SCRIPT = """
# opening stock
receive A-100 40 @ 2.50
receive B-200 12 @ 7.25
receive C-300 5 @ 19.99
receive D-400 30 @ 0.80

order O1 A-100 10
order O1 B-200 4
order O2 B-200 3
order O2 C-300 2
order O3 D-400 12
ship O1
report

# cycle count found damaged units
adjust B-200 -6 damaged
order O4 A-100 5
cancel O3
ship O2
report
"""


class Kind(Enum):
    RECEIVE = "receive"
    ORDER = "order"
    SHIP = "ship"
    CANCEL = "cancel"
    ADJUST = "adjust"
    REPORT = "report"


class ParseError(Exception):
    def __init__(self, lineno, message):
        super().__init__(f"line {lineno}: {message}")
        self.lineno = lineno


@dataclass(frozen=True)
class Command:
    kind: Kind
    args: tuple
    lineno: int


@dataclass
class Item:
    sku: str
    on_hand: int = 0
    reserved: int = 0
    unit_cost: float = 0.0

    @property
    def available(self):
        return self.on_hand - self.reserved


@dataclass
class OrderLine:
    sku: str
    qty: int


@dataclass
class Order:
    order_id: str
    lines: list = field(default_factory=list)
    status: str = "open"

    def total_units(self):
        return sum(line.qty for line in self.lines)


class Money:
    """Fixed-point money in cents, to keep the ledger exact."""

    def __init__(self, cents):
        self.cents = int(cents)

    @classmethod
    def parse(cls, text):
        whole, _, frac = text.partition(".")
        return cls(int(whole) * 100 + int((frac + "00")[:2]))

    def __add__(self, other):
        return Money(self.cents + other.cents)

    def __mul__(self, qty):
        return Money(self.cents * qty)

    def __repr__(self):
        return f"${self.cents // 100}.{self.cents % 100:02d}"


SKU_RE = re.compile(r"^[A-Z]-\d{3}$")
ORDER_RE = re.compile(r"^O\d+$")


def parse_int(token, lineno, what):
    try:
        return int(token)
    except ValueError:
        raise ParseError(lineno, f"{what} must be an integer, got {token!r}") from None


def check_sku(token, lineno):
    if not SKU_RE.match(token):
        raise ParseError(lineno, f"bad SKU {token!r}")
    return token


def check_order_id(token, lineno):
    if not ORDER_RE.match(token):
        raise ParseError(lineno, f"bad order id {token!r}")
    return token


def parse_receive(tokens, lineno):
    if len(tokens) != 4 or tokens[2] != "@":
        raise ParseError(lineno, "usage: receive SKU QTY @ COST")
    return (check_sku(tokens[0], lineno), parse_int(tokens[1], lineno, "quantity"), Money.parse(tokens[3]))


def parse_order(tokens, lineno):
    if len(tokens) != 3:
        raise ParseError(lineno, "usage: order ID SKU QTY")
    return (check_order_id(tokens[0], lineno), check_sku(tokens[1], lineno), parse_int(tokens[2], lineno, "quantity"))


def parse_order_ref(tokens, lineno):
    if len(tokens) != 1:
        raise ParseError(lineno, "expected a single order id")
    return (check_order_id(tokens[0], lineno),)


def parse_adjust(tokens, lineno):
    if len(tokens) not in (2, 3):
        raise ParseError(lineno, "usage: adjust SKU DELTA [REASON]")
    reason = tokens[2] if len(tokens) == 3 else "unspecified"
    return (check_sku(tokens[0], lineno), parse_int(tokens[1], lineno, "delta"), reason)


def parse_report(tokens, lineno):
    if tokens:
        raise ParseError(lineno, "report takes no arguments")
    return ()


ARG_PARSERS = {
    Kind.RECEIVE: parse_receive,
    Kind.ORDER: parse_order,
    Kind.SHIP: parse_order_ref,
    Kind.CANCEL: parse_order_ref,
    Kind.ADJUST: parse_adjust,
    Kind.REPORT: parse_report,
}


def parse_script(text):
    commands = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        head, *tokens = line.split()
        try:
            kind = Kind(head)
        except ValueError:
            raise ParseError(lineno, f"unknown command {head!r}") from None
        commands.append(Command(kind, ARG_PARSERS[kind](tokens, lineno), lineno))
    return commands


class Ledger:
    def __init__(self):
        self.entries = []

    def record(self, kind, sku, qty, note=""):
        self.entries.append((len(self.entries), kind, sku, qty, note))

    def units_by_kind(self):
        totals = defaultdict(int)
        for _, kind, _, qty, _ in self.entries:
            totals[kind] += qty
        return dict(totals)

    def to_csv(self):
        rows = ["seq,kind,sku,qty,note"]
        rows += [",".join(str(v) for v in entry) for entry in self.entries]
        return "\n".join(rows)


class Inventory:
    def __init__(self):
        self.items = OrderedDict()
        self.orders = {}
        self.ledger = Ledger()
        self.value = Money(0)

    def item(self, sku):
        if sku not in self.items:
            self.items[sku] = Item(sku)
        return self.items[sku]

    def receive(self, sku, qty, cost):
        item = self.item(sku)
        item.on_hand += qty
        item.unit_cost = cost.cents / 100
        self.value = self.value + cost * qty
        self.ledger.record("receive", sku, qty)

    def reserve(self, order_id, sku, qty):
        item = self.item(sku)
        if qty > item.available:
            raise ValueError(f"cannot reserve {qty} of {sku}: only {item.available} available")
        item.reserved += qty
        order = self.orders.setdefault(order_id, Order(order_id))
        order.lines.append(OrderLine(sku, qty))
        self.ledger.record("reserve", sku, qty, order_id)

    def ship(self, order_id):
        order = self.open_order(order_id)
        for line in order.lines:
            item = self.items[line.sku]
            item.reserved -= line.qty
            item.on_hand -= line.qty
            self.ledger.record("ship", line.sku, line.qty, order_id)
        order.status = "shipped"

    def cancel(self, order_id):
        order = self.open_order(order_id)
        for line in order.lines:
            self.items[line.sku].reserved -= line.qty
            self.ledger.record("release", line.sku, line.qty, order_id)
        order.status = "cancelled"

    def adjust(self, sku, delta, reason):
        # Shrinkage is applied as counted; reservations are reconciled later.
        item = self.item(sku)
        item.on_hand += delta
        self.ledger.record("adjust", sku, delta, reason)

    def open_order(self, order_id):
        order = self.orders.get(order_id)
        if order is None or order.status != "open":
            raise KeyError(f"no open order {order_id}")
        return order

    def check_invariants(self):
        for item in self.items.values():
            if item.on_hand < 0 or item.reserved < 0:
                raise ValueError(f"inventory invariant violated: negative stock for {item.sku}")
            if item.reserved > item.on_hand:
                raise ValueError(
                    f"inventory invariant violated: {item.sku} has {item.reserved} reserved "
                    f"but only {item.on_hand} on hand"
                )


def format_report(inventory):
    lines = [f"{'sku':<8}{'on hand':>9}{'reserved':>10}{'available':>11}"]
    for item in inventory.items.values():
        lines.append(f"{item.sku:<8}{item.on_hand:>9}{item.reserved:>10}{item.available:>11}")
    open_orders = sorted(o.order_id for o in inventory.orders.values() if o.status == "open")
    lines.append(f"open orders: {', '.join(open_orders) or 'none'}")
    return "\n".join(lines)


def reorder_suggestions(inventory, threshold=5, target=20):
    """Planned feature: suggested purchase quantities for low-stock items."""
    return {sku: target - item.available for sku, item in inventory.items.items() if item.available < threshold}


def bulk_discount(units, tiers=((100, 0.15), (50, 0.10), (20, 0.05))):
    for minimum, rate in tiers:
        if units >= minimum:
            return rate
    return 0.0


class Interpreter:
    def __init__(self, inventory, echo=print):
        self.inventory = inventory
        self.echo = echo
        self.handlers = {
            Kind.RECEIVE: self.inventory.receive,
            Kind.ORDER: self.inventory.reserve,
            Kind.SHIP: self.inventory.ship,
            Kind.CANCEL: self.inventory.cancel,
            Kind.ADJUST: self.inventory.adjust,
            Kind.REPORT: self.report,
        }
        self.executed = 0

    def report(self):
        self.echo(format_report(self.inventory))

    def execute(self, command):
        self.handlers[command.kind](*command.args)
        self.inventory.check_invariants()
        self.executed += 1

    def run(self, commands):
        for command in commands:
            self.execute(command)
        return self.executed


def summarize(inventory):
    totals = inventory.ledger.units_by_kind()
    return ", ".join(f"{kind}={qty}" for kind, qty in sorted(totals.items()))


def main():
    commands = parse_script(SCRIPT)
    inventory = Inventory()
    interpreter = Interpreter(inventory)
    executed = interpreter.run(commands)
    print(f"executed {executed} commands; stock value {inventory.value}")
    print(summarize(inventory))


main()

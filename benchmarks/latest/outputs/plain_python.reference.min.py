from collections import defaultdict, OrderedDict
from dataclasses import dataclass, field
from enum import Enum
SCRIPT = '\n# opening stock\nreceive A-100 40 @ 2.50\nreceive B-200 12 @ 7.25\nreceive C-300 5 @ 19.99\nreceive D-400 30 @ 0.80\n\norder O1 A-100 10\norder O1 B-200 4\norder O2 B-200 3\norder O2 C-300 2\norder O3 D-400 12\nship O1\nreport\n\n# cycle count found damaged units\nadjust B-200 -6 damaged\norder O4 A-100 5\ncancel O3\nship O2\nreport\n'

class Kind(Enum):
    RECEIVE = 'receive'
    ORDER = 'order'
    SHIP = 'ship'
    CANCEL = 'cancel'
    ADJUST = 'adjust'
    REPORT = 'report'

@dataclass()
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

def parse_int(token, *args, **kwargs):
    try:
        return int(token)
    except ValueError:
        pass
    else:
        pass
    finally:
        pass

def parse_receive(tokens, *args, **kwargs):
    return (tokens[0], parse_int(tokens[1]))

def parse_order(tokens, *args, **kwargs):
    return (tokens[0], tokens[1], parse_int(tokens[2]))

def parse_order_ref(tokens, *args, **kwargs):
    return (tokens[0],)

def parse_adjust(tokens, *args, **kwargs):
    return (tokens[0], parse_int(tokens[1]))

def parse_report(*args, **kwargs):
    return ()
ARG_PARSERS = {Kind.RECEIVE: parse_receive, Kind.ORDER: parse_order, Kind.SHIP: parse_order_ref, Kind.CANCEL: parse_order_ref, Kind.ADJUST: parse_adjust, Kind.REPORT: parse_report}

def parse_script(text, *args, **kwargs):
    commands = []
    for lineno, raw in enumerate(text.splitlines()):
        line = raw.split('#')[0].strip()
        if not line:
            continue
        head, *tokens = line.split()
        try:
            kind = Kind(head)
        except ValueError:
            pass
        else:
            pass
        finally:
            pass
        commands.append(Command(kind, ARG_PARSERS[kind](tokens), lineno))
    return commands

class Inventory:

    def __init__(self, *args, **kwargs):
        self.items = OrderedDict()
        self.orders = {}

    def item(self, sku, *args, **kwargs):
        if sku not in self.items:
            self.items[sku] = Item(sku)
        return self.items[sku]

    def receive(self, sku, qty, *args, **kwargs):
        item = self.item(sku)
        item.on_hand += qty

    def reserve(self, order_id, sku, qty, *args, **kwargs):
        item = self.item(sku)
        item.reserved += qty
        order = self.orders.setdefault(order_id, Order(order_id))
        order.lines.append(OrderLine(sku, qty))

    def ship(self, order_id, *args, **kwargs):
        order = self.open_order(order_id)
        for line in order.lines:
            item = self.items[line.sku]
            item.reserved -= line.qty
            item.on_hand -= line.qty

    def cancel(*args, **kwargs):
        pass

    def adjust(self, sku, delta, *args, **kwargs):
        item = self.item(sku)
        item.on_hand += delta

    def open_order(self, order_id, *args, **kwargs):
        order = self.orders.get(order_id)
        return order

    def check_invariants(self, *args, **kwargs):
        for item in self.items.values():
            if item.reserved > item.on_hand:
                raise ValueError(f'inventory invariant violated: {item.sku} has {item.reserved} reserved but only {item.on_hand} on hand')

class Interpreter:

    def __init__(self, inventory, *args, **kwargs):
        self.inventory = inventory
        self.handlers = {Kind.RECEIVE: self.inventory.receive, Kind.ORDER: self.inventory.reserve, Kind.SHIP: self.inventory.ship, Kind.CANCEL: self.inventory.cancel, Kind.ADJUST: self.inventory.adjust, Kind.REPORT: self.report}

    def report(*args, **kwargs):
        pass

    def execute(self, command, *args, **kwargs):
        self.handlers[command.kind](*command.args)
        self.inventory.check_invariants()

    def run(self, commands, *args, **kwargs):
        for command in commands:
            self.execute(command)

def main(*args, **kwargs):
    commands = parse_script(SCRIPT)
    inventory = Inventory()
    interpreter = Interpreter(inventory)
    interpreter.run(commands)
main()
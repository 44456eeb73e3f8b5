# The size ladder's top rung (benchmarks/ladder.py): a network-plan audit (a script) over three sibling
# modules that the builder writes beside it, the interpreter's own configparser.py as `iniconf.py`,
# ipaddress.py as `ipnets.py` and shlex.py as `rulewords.py`, verbatim (~1,170, ~1,790 and ~330
# non-blank lines on Python 3.11).
# The bug (injected here): a zone's gateway is an interface address (host and prefix, "10.20.10.1/24",
# put together by the plan's interpolation), but the script builds it with ip_network(), which is strict
# and rejects the host bits; ip_interface() is what it wants (with it the audit runs to the end).
from iniconf import ConfigParser
from ipnets import collapse_addresses, ip_address, ip_network
from rulewords import split

PLAN = """\
[DEFAULT]
site = 10.20
dns = %(site)s.0.53

[office]
prefix = %(site)s.10
networks = %(prefix)s.0/24 %(prefix)s.128/25
gateway = %(prefix)s.1/24
rules =
    allow tcp 443 from any
    allow udp 53 from %(dns)s
    deny tcp 23 from any "legacy telnet"

[servers]
prefix = %(site)s.20
networks = %(prefix)s.0/24
gateway = %(prefix)s.1/24
rules =
    allow tcp 22 from %(site)s.10.0/24 "admins only"
    allow tcp 5432 from %(prefix)s.0/24

[lab]
prefix = %(site)s.40
networks = %(prefix)s.0/23
gateway = %(prefix)s.1/24
rules =
    allow any any from any "isolated lab"
"""

PROTOCOLS = {"tcp", "udp", "any"}


class Rule:
    def __init__(self, action, protocol, port, source, note=""):
        if action not in ("allow", "deny"):
            raise ValueError(f"unknown action {action!r}")
        if protocol not in PROTOCOLS:
            raise ValueError(f"unknown protocol {protocol!r}")
        self.action, self.protocol, self.note = action, protocol, note
        self.port = None if port == "any" else int(port)
        self.source = None if source == "any" else ip_network(source)

    def covers(self, address):
        return self.source is None or address in self.source

    def __str__(self):
        port = "any" if self.port is None else str(self.port)
        source = "any" if self.source is None else str(self.source)
        text = f"{self.action:<5} {self.protocol:<3} {port:>5} from {source}"
        return f"{text}  # {self.note}" if self.note else text


def parse_rule(line):
    words = split(line, comments=True)
    if len(words) < 5 or words[3] != "from":
        raise ValueError(f"bad rule {line!r}")
    action, protocol, port, _, source, *note = words
    return Rule(action, protocol, port, source, " ".join(note))


class Zone:
    def __init__(self, name, section):
        self.name = name
        self.networks = [ip_network(text) for text in section["networks"].split()]
        self.gateway = ip_network(section["gateway"])
        self.rules = [parse_rule(line) for line in section["rules"].splitlines() if line.strip()]

    def contains(self, address):
        return any(address in network for network in self.networks)

    def size(self):
        return sum(network.num_addresses for network in self.networks)


def load(text):
    parser = ConfigParser()
    parser.read_string(text, source="plan.ini")
    return [Zone(name, parser[name]) for name in parser.sections()]


def overlaps(zones):
    found = []
    for i, first in enumerate(zones):
        for second in zones[i + 1:]:
            for a in first.networks:
                for b in second.networks:
                    if a.overlaps(b):
                        found.append((first.name, a, second.name, b))
    return found


def reachable(zones, address, protocol, port):
    """The zones whose first matching rule allows `address` on (protocol, port)."""
    address = ip_address(address)
    allowed = []
    for zone in zones:
        for rule in zone.rules:
            if rule.protocol not in ("any", protocol) or rule.port not in (None, port):
                continue
            if rule.covers(address):
                if rule.action == "allow":
                    allowed.append(zone.name)
                break
    return allowed


def report(zones):
    lines = []
    for zone in zones:
        nets = ", ".join(str(network) for network in zone.networks)
        lines.append(f"[{zone.name}] {nets} ({zone.size()} addresses), gateway {zone.gateway}")
        lines.extend(f"    {rule}" for rule in zone.rules)
    everything = [network for zone in zones for network in zone.networks]
    lines.append("summary: " + ", ".join(str(n) for n in collapse_addresses(everything)))
    for first, a, second, b in overlaps(zones):
        lines.append(f"overlap: {first} {a} and {second} {b}")
    return "\n".join(lines)


zones = load(PLAN)
print(report(zones))
for probe in ("10.20.10.7", "10.20.0.53", "192.0.2.9"):
    print(probe, "ssh:", reachable(zones, probe, "tcp", 22), "dns:", reachable(zones, probe, "udp", 53))

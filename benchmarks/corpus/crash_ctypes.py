"""A checksum tool over a native buffer library: a bad offset table makes it read address 0.

The failure prints no message: the program dies by SIGSEGV inside ctypes'
string_at. Benchmarked with `--crash SIGSEGV` (our tool only: the reference
keeps a message).
"""

import ctypes
import hashlib
import json
import zlib

RECORDS = [
    {"id": 1, "name": "alpha", "payload": "a" * 12},
    {"id": 2, "name": "beta", "payload": "b" * 7},
    {"id": 3, "name": "gamma", "payload": "c" * 30},
    {"id": 4, "name": "delta", "payload": "d" * 3},
]


class Arena:
    """Record payloads packed into one native buffer, found by their offsets."""

    def __init__(self, records):
        blob = b"".join(r["payload"].encode() for r in records)
        self.buffer = ctypes.create_string_buffer(blob)  # NUL-terminated
        self.base = ctypes.addressof(self.buffer)
        self.offsets = {}
        position = 0
        for record in records:
            size = len(record["payload"])
            self.offsets[record["id"]] = (position, size)
            position += size

    def address_of(self, record_id):
        offset, _ = self.offsets[record_id]
        return self.base + offset

    def read(self, record_id, address=None):
        _, size = self.offsets[record_id]
        where = self.address_of(record_id) if address is None else address
        return ctypes.string_at(where)[:size]  # up to the terminator, then the record's share


def summarize(records):
    names = sorted(r["name"] for r in records)
    total = sum(len(r["payload"]) for r in records)
    return {"names": names, "total": total, "digest": hashlib.sha1(json.dumps(names).encode()).hexdigest()[:8]}


def crc_table(arena, records, relocations):
    table = {}
    for record in records:
        address = relocations.get(record["id"], arena.address_of(record["id"]))
        table[record["id"]] = zlib.crc32(arena.read(record["id"], address))
    return table


def load_relocations(text):
    """A relocation table from a config: record id -> absolute address (0 when unset: the bug)."""
    entries = json.loads(text)
    return {int(key): int(value) for key, value in entries.items()}


print("summary", summarize(RECORDS))
arena = Arena(RECORDS)
print("first", arena.read(1)[:4])
relocations = load_relocations('{"3": 0}')
print("crc", crc_table(arena, RECORDS, relocations))

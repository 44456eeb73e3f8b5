"""Checks that a platform-specific .vsix holds what its platform needs.

Usage: python check_vsix.py FILE.vsix TARGET   (TARGET: linux-x64, linux-arm64, darwin-x64,
darwin-arm64, win32-x64). Exit 0 when the manifest names TARGET (`TargetPlatform`), the
server's entry script and package are there, and the bundled ruff is that platform's native
binary (ELF / Mach-O / PE of the right architecture); else one line per problem and exit 1.
Standard library only: `npm run package` runs it after each `vsce package`, and the tests
import `binary_platform` and `problems`.
"""

from __future__ import annotations

import re
import struct
import sys
import zipfile

# VS Code target -> (binary format, architecture) of its native executables
EXPECTED = {
    "linux-x64": ("ELF", "x86-64"),
    "linux-arm64": ("ELF", "arm64"),
    "darwin-x64": ("Mach-O", "x86-64"),
    "darwin-arm64": ("Mach-O", "arm64"),
    "win32-x64": ("PE", "x86-64"),
}
ELF_MACHINES = {0x3E: "x86-64", 0xB7: "arm64"}
MACHO_CPUS = {0x01000007: "x86-64", 0x0100000C: "arm64"}
PE_MACHINES = {0x8664: "x86-64", 0xAA64: "arm64"}
ENTRY = "extension/bundled/tool/autodd_server.py"
PACKAGE = "extension/bundled/libs/autodd_lsp/__init__.py"


def binary_platform(head: bytes) -> tuple[str, str] | None:
    """(format, architecture) of an executable from its first bytes (at least 512); None if unknown."""
    if head[:4] == b"\x7fELF" and len(head) >= 20:
        little = head[5] == 1
        (machine,) = struct.unpack("<H" if little else ">H", head[18:20])
        return "ELF", ELF_MACHINES.get(machine, hex(machine))
    if head[:4] == b"\xcf\xfa\xed\xfe" and len(head) >= 8:  # 64-bit Mach-O, little-endian
        (cpu,) = struct.unpack("<I", head[4:8])
        return "Mach-O", MACHO_CPUS.get(cpu, hex(cpu))
    if head[:2] == b"MZ" and len(head) >= 64:
        (offset,) = struct.unpack("<I", head[0x3C:0x40])
        if head[offset:offset + 4] == b"PE\0\0" and len(head) >= offset + 6:
            (machine,) = struct.unpack("<H", head[offset + 4:offset + 6])
            return "PE", PE_MACHINES.get(machine, hex(machine))
    return None


def problems(path: str, target: str) -> list[str]:
    """What is wrong with the .vsix at `path` for `target` (empty: nothing)."""
    if target not in EXPECTED:
        return [f"unknown target {target}"]
    found: list[str] = []
    with zipfile.ZipFile(path) as vsix:
        names = set(vsix.namelist())
        manifest = vsix.read("extension.vsixmanifest").decode("utf-8")
        platform = re.search(r'TargetPlatform="([^"]*)"', manifest)
        if platform is None or platform.group(1) != target:
            found.append(f"manifest TargetPlatform is {platform.group(1) if platform else 'missing'}, not {target}")
        found += [f"missing {name}" for name in (ENTRY, PACKAGE) if name not in names]
        ruff = [n for n in names if re.fullmatch(r"extension/bundled/libs/bin/ruff(\.exe)?", n)]
        if len(ruff) != 1:
            found.append(f"expected one bundled ruff binary, found {ruff or 'none'}")
        else:
            wanted = "extension/bundled/libs/bin/ruff.exe" if target.startswith("win32") else "extension/bundled/libs/bin/ruff"
            if ruff[0] != wanted:
                found.append(f"{ruff[0]} where {wanted} was expected")
            with vsix.open(ruff[0]) as binary:
                kind = binary_platform(binary.read(4096))
            if kind != EXPECTED[target]:
                found.append(f"{ruff[0]} is {kind or 'not a known executable'}, not {EXPECTED[target]}")
    return found


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: check_vsix.py FILE.vsix TARGET", file=sys.stderr)
        return 2
    path, target = argv
    found = problems(path, target)
    for problem in found:
        print(f"check_vsix: {path}: {problem}", file=sys.stderr)
    if not found:
        print(f"check_vsix: {path}: {target}, ruff is {' '.join(EXPECTED[target])}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

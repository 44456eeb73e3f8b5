"""The platform-specific .vsix files (`npm run package` in vscode-extension/): each names its
target in the manifest and bundles that platform's native ruff binary (scripts/check_vsix.py,
which the packaging runs after each `vsce package`).

The checker is tested on real executables: the ruff binary of this interpreter's environment
(ELF, this machine's architecture) and the wheels' binaries inside any .vsix already built; a
.vsix made here with the wrong binary for its manifest is refused. The five files themselves
are checked when they exist (building them fetches wheels for five platforms: minutes, with
network; run `npm run package` first)."""

import importlib.util
import platform
import shutil
import zipfile
from pathlib import Path

import pytest

EXT = Path(__file__).resolve().parents[1] / "vscode-extension"
TARGETS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64"]


def load_checker():
    spec = importlib.util.spec_from_file_location("check_vsix", EXT / "scripts" / "check_vsix.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


check_vsix = load_checker()


def host_ruff() -> Path:
    found = shutil.which("ruff") or str(Path(__import__("sys").executable).parent / "ruff")
    path = Path(found)
    if not path.is_file():
        pytest.skip("no ruff binary in this environment")
    return path


def fake_vsix(path: Path, target: str, ruff: bytes, name: str = "extension/bundled/libs/bin/ruff") -> Path:
    with zipfile.ZipFile(path, "w") as vsix:
        vsix.writestr("extension.vsixmanifest", f'<Identity Id="autodd-vscode" TargetPlatform="{target}" />')
        vsix.writestr(check_vsix.ENTRY, "")
        vsix.writestr(check_vsix.PACKAGE, "")
        vsix.writestr(name, ruff)
    return path


def test_the_host_ruff_binary_is_recognised():
    with host_ruff().open("rb") as binary:
        kind = check_vsix.binary_platform(binary.read(4096))
    machine = platform.machine().lower()
    arch = "x86-64" if machine in ("x86_64", "amd64") else "arm64" if machine in ("aarch64", "arm64") else machine
    assert kind == ("ELF" if platform.system() == "Linux" else kind[0], arch)


def test_a_vsix_whose_binary_is_not_its_platforms_is_refused(tmp_path):
    ruff = host_ruff().read_bytes()
    host = "linux-x64" if check_vsix.binary_platform(ruff[:4096]) == ("ELF", "x86-64") else "linux-arm64"
    assert check_vsix.problems(str(fake_vsix(tmp_path / "ok.vsix", host, ruff)), host) == []
    wrong = check_vsix.problems(str(fake_vsix(tmp_path / "mac.vsix", "darwin-arm64", ruff)), "darwin-arm64")
    assert len(wrong) == 1 and "is ('ELF'" in wrong[0] and "not ('Mach-O', 'arm64')" in wrong[0]
    named = check_vsix.problems(str(fake_vsix(tmp_path / "other.vsix", host, ruff)), "win32-x64")
    assert any("TargetPlatform is " + host in p for p in named)
    assert any("ruff.exe was expected" in p for p in named)
    assert check_vsix.binary_platform(b"#!/bin/sh\n" + b"\0" * 600) is None


@pytest.mark.parametrize("target", TARGETS)
def test_each_built_vsix_holds_its_platforms_ruff(target):
    vsix = EXT / "dist" / f"autodd-vscode-{target}.vsix"
    if not vsix.exists():
        pytest.skip(f"{vsix.name} not built (cd vscode-extension && npm run package)")
    assert check_vsix.problems(str(vsix), target) == []
    with zipfile.ZipFile(vsix) as archive:
        name = "extension/bundled/libs/bin/ruff" + (".exe" if target.startswith("win32") else "")
        with archive.open(name) as binary:
            assert check_vsix.binary_platform(binary.read(4096)) == check_vsix.EXPECTED[target]

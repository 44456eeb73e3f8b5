#!/usr/bin/env bash
# Create (or reuse) .venv and install AutoDD with the given extras.
# Source it: `. scripts/setup-venv.sh tilelang,test`.
# torch is installed first and pinned: on this kind of machine `torch==2.13.0` is
# the CPU build lying on disk, while an open range would pull a multi-GB CUDA build.
extras="${1:-tilelang}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ ! -x "$root/.venv/bin/python" ]; then
    python3 -m venv "$root/.venv"
fi
. "$root/.venv/bin/activate"
python -m pip install -q --upgrade pip
python -m pip install -q "torch==2.13.0"
# "compat": a plain path in a .pth file. The default editable install adds an import
# hook that costs every interpreter in the venv ~30 ms at start (the CLI, each fork
# server, the final check, and every candidate of the subprocess backend).
python -m pip install -q -e "$root[$extras]" --config-settings editable_mode=compat 2>/dev/null \
    || python -m pip install -q -e "$root[$extras]"
# An editable install leaves the package uncompiled, and where PYTHONDONTWRITEBYTECODE
# is set nothing ever writes the bytecode cache: each start of the CLI or the language server
# would compile all of AutoDD again (~90 ms). Compile it once here.
python -m compileall -q "$root/autodd_lsp" >/dev/null

#!/usr/bin/env bash
# On a machine with NVIDIA GPUs: install AutoDD with TileLang and a CUDA build of torch
# (in their own venv, .venv-gpu, or $AUTODD_GPU_VENV), then reduce a TileLang kernel whose
# bug shows only when the kernel is compiled and launched on the GPU (it traces fine; its
# result is wrong), with `--gpus auto -j 2` (-j 1 where only one GPU is visible: each
# running candidate has a GPU of its own). Prints the result and the timings.
# Without an NVIDIA GPU it fails at once with a one-line message.
set -euo pipefail

fail() { echo "gpu-check: $*" >&2; exit 1; }

command -v nvidia-smi >/dev/null 2>&1 || fail "no NVIDIA GPU here (nvidia-smi not found)"
gpus="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)"
[ "${gpus:-0}" -ge 1 ] || fail "no NVIDIA GPU here (nvidia-smi lists none)"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${AUTODD_GPU_VENV:-$root/.venv-gpu}"
now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

start="$(now)"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" || fail "cannot create a venv at $venv (is python3-venv installed?)"
fi
py="$venv/bin/python"
"$py" -m pip install -q --upgrade pip
# From PyPI on Linux x86-64, torch is the CUDA build (the project's pin, see pyproject.toml).
"$py" -m pip install -q "torch==2.13.0"
"$py" -m pip install -q -e "$root[tilelang]" --config-settings editable_mode=compat 2>/dev/null \
    || "$py" -m pip install -q -e "$root[tilelang]"
"$py" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" \
    || fail "torch in $venv cannot use the GPU (torch.cuda.is_available() is False)"
echo "gpu-check: installed in $(took "$start") into $venv"
nvidia-smi -L

work="$(mktemp -d "${TMPDIR:-/tmp}/autodd-gpu-check.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cat > "$work/scaled_add.py" <<'PROGRAM'
"""out = A + alpha * B in TileLang, tiled, with a harness around it.

The kernel traces and compiles without complaint; the bug (B's tile read one column
to the right) shows only in the numbers the GPU computes.
"""

import math
import os
import time

import tilelang
import tilelang.language as T
import torch

M = int(os.environ.get("ADD_M", "1024"))
N = int(os.environ.get("ADD_N", "1024"))
BLOCK = 64
ALPHA = 0.5
REPEATS = 5


def describe(tensor):
    return "%s %s on %s" % (tuple(tensor.shape), str(tensor.dtype).replace("torch.", ""), tensor.device)


def gflops(seconds):
    return 2 * M * N / seconds / 1e9 if seconds else math.inf


def scaled_add(M, N, block_M, block_N, alpha, dtype="float16"):
    @T.prim_func
    def kernel(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            for i, j in T.Parallel(block_M, block_N):
                row = by * block_M + i
                col = bx * block_N + j
                shifted = T.min(col + 1, N - 1)  # the bug: should read column `col`
                C[row, col] = A[row, col] + alpha * B[row, shifted]

    return kernel


def unused_reference_loop(a, b):
    out = a.clone()
    for row in range(a.shape[0]):
        out[row] = a[row] + ALPHA * b[row]
    return out


def main():
    torch.manual_seed(0)
    a = torch.randn(M, N, device="cuda", dtype=torch.float16)
    b = torch.randn(M, N, device="cuda", dtype=torch.float16)
    print("inputs:", describe(a), describe(b))
    compiled = tilelang.compile(scaled_add(M, N, BLOCK, BLOCK, ALPHA), out_idx=[2])
    c = compiled(a, b)
    torch.cuda.synchronize()
    started = time.perf_counter()
    for _ in range(REPEATS):
        compiled(a, b)
    torch.cuda.synchronize()
    print("kernel: %.3f ms, %.1f GFLOP/s" % ((time.perf_counter() - started) / REPEATS * 1e3,
                                            gflops((time.perf_counter() - started) / REPEATS)))
    expected = a + ALPHA * b
    error = (c.float() - expected.float()).abs().max().item()
    if error > 1e-2:
        raise AssertionError("GPU result mismatch: max abs error %.3f" % error)
    print("ok")


main()
PROGRAM

echo "----- the original, run once -----"
start="$(now)"
set +e
(cd "$work" && "$py" scaled_add.py) > "$work/original.log" 2>&1
status=$?
set -e
tail -n 3 "$work/original.log"
echo "gpu-check: original ran in $(took "$start"), exit status $status"
grep -q "GPU result mismatch" "$work/original.log" \
    || fail "the original did not show the GPU-only failure (see above)"

jobs=2
if [ "$gpus" -lt 2 ]; then
    jobs=1
    echo "gpu-check: one GPU visible: -j 1 (each running candidate needs a GPU of its own)"
fi
echo "----- autodd --gpus auto -j $jobs -----"
start="$(now)"
set +e
(cd "$work" && "$venv/bin/autodd" scaled_add.py --err-msg "GPU result mismatch" --gpus auto -j "$jobs" \
    -o scaled_add.min.py)
status=$?
set -e
echo "gpu-check: reduced in $(took "$start"), autodd exit status $status"
[ -f "$work/scaled_add.min.py" ] || fail "autodd wrote no result"
echo "----- scaled_add.min.py -----"
cat "$work/scaled_add.min.py"
echo "----- the result, run once more -----"
start="$(now)"
(cd "$work" && "$py" scaled_add.min.py 2>&1 | tail -n 2) || true
echo "gpu-check: result ran in $(took "$start")"

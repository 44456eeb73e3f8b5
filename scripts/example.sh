#!/usr/bin/env bash
# Install AutoDD (with TileLang on CPU) and minimize the bundled TileLang example.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup-venv.sh tilelang
mkdir -p out
autodd examples/autodd/gemm_bug.py --err-msg "T.gemm K shape check failed" -o out/gemm_bug.min.py
echo "----- out/gemm_bug.min.py -----"
cat out/gemm_bug.min.py

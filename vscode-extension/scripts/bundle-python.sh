#!/usr/bin/env bash
# Puts the AutoDD language server and its runtime dependencies into bundled/libs,
# so that the .vsix runs with any Python 3.10+ interpreter (the convention of
# Microsoft's Python tools extension template and of ruff's extension).
#
# Installs the repository's package (the folder above vscode-extension/) and the
# dependencies pinned in its pyproject.toml with `pip install --target`, resolved
# for Python 3.10 (the oldest supported: environment markers then pull what 3.10
# needs, e.g. exceptiongroup, which newer versions ignore) as binary wheels for
# the platform of this machine: ruff's wheel holds a native binary, so the result
# (and the .vsix) is for this platform only. Then drops what is never needed at
# run time (__pycache__, the package's console scripts).
#
# Environment: AUTODD_BUNDLE_PYTHON  the Python with pip that does the install
#              (default python3; any version: the target is always 3.10+).
set -euo pipefail
EXT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPO="$(cd "$EXT_DIR/.." && pwd)"
PY="${AUTODD_BUNDLE_PYTHON:-python3}"
LIBS="$EXT_DIR/bundled/libs"
WHEELS="$(mktemp -d "${TMPDIR:-/tmp}/autodd-bundle.XXXXXX")"
trap 'rm -rf "$WHEELS"' EXIT

rm -rf "$LIBS"
mkdir -p "$LIBS"
# 1. the repository's package as a wheel (pure Python), without its dependencies, built
#    from a copy so that setuptools leaves no build/ or *.egg-info in the checkout
mkdir -p "$WHEELS/src"
cp -r "$REPO/pyproject.toml" "$REPO/README.md" "$REPO/autodd_lsp" "$WHEELS/src/"
cp "$REPO"/LICEN[CS]E* "$WHEELS/src/" 2>/dev/null || true
find "$WHEELS/src" -name __pycache__ -type d -prune -exec rm -rf {} +
"$PY" -m pip wheel --quiet --no-deps --wheel-dir "$WHEELS" "$WHEELS/src"
# 2. that wheel and its dependencies, as binary wheels for Python 3.10 on this platform
"$PY" -m pip install --quiet --disable-pip-version-check --no-compile --upgrade \
  --target "$LIBS" --python-version 3.10 --only-binary=:all: "$WHEELS"/autodd_lsp-*.whl
# 3. pip evaluates environment markers for the Python running it, not for
#    --python-version: add what the bundled distributions need on 3.10 only
#    (e.g. cattrs' `exceptiongroup; python_version < '3.11'`), until nothing is missing
while :; do
  extra="$("$PY" - "$LIBS" <<'PYEOF'
import sys
from importlib.metadata import distributions
from pip._vendor.packaging.requirements import Requirement
from pip._vendor.packaging.utils import canonicalize_name

libs = sys.argv[1]
dists = list(distributions(path=[libs]))
have = {canonicalize_name(d.metadata["Name"]) for d in dists}
env = {"python_version": "3.10", "python_full_version": "3.10.0", "extra": ""}
for d in dists:
    for line in d.requires or ():
        req = Requirement(line)
        if req.marker is not None and req.marker.evaluate(env) and canonicalize_name(req.name) not in have:
            print(str(req).split(";")[0])
PYEOF
)"
  [ -z "$extra" ] && break
  # shellcheck disable=SC2086
  "$PY" -m pip install --quiet --disable-pip-version-check --no-compile --no-deps \
    --target "$LIBS" --python-version 3.10 --only-binary=:all: $extra
done
find "$LIBS" -name __pycache__ -type d -prune -exec rm -rf {} +
# only ruff's binary is run from bin/ (by the tidy pass); the rest are console scripts
find "$LIBS/bin" -type f ! -name ruff -delete
test -x "$LIBS/bin/ruff"
echo "bundled into $LIBS: $(ls "$LIBS" | grep -c 'dist-info$') distributions, $(du -sh "$LIBS" | cut -f1)"

#!/usr/bin/env bash
# Puts the AutoDD language server and its runtime dependencies into bundled/libs,
# so that the .vsix runs with any Python 3.10+ interpreter (the convention of
# Microsoft's Python tools extension template and of ruff's extension).
#
# Usage: bundle-python.sh [TARGET]   TARGET: a VS Code target platform (linux-x64,
# linux-arm64, darwin-x64, darwin-arm64, win32-x64); default: this machine's.
#
# Installs the repository's package (the folder above vscode-extension/) and the
# dependencies pinned in its pyproject.toml with `pip install --target`, resolved
# for Python 3.10 (the oldest supported: environment markers then pull what 3.10
# needs, e.g. exceptiongroup, which newer versions ignore) as binary wheels for
# TARGET, fetched with pip's `--platform` (the way ruff's extension ships one
# .vsix per platform): everything is pure Python except ruff's wheel, which holds
# the native `ruff` binary of that platform, and the distributions with a compiled
# extension module tagged for one CPython (rpds-py, under nbformat → jsonschema, which
# reads notebooks): their wheel is fetched again for each newer CPython too, and its
# `*.cpython-3XX-*` / `*.cp3XX-*` modules added beside the 3.10 one (Python imports the
# one tagged for itself), else a 3.11+ interpreter could not import them. Then drops
# what is never needed at run time (__pycache__, the package's console scripts).
#
# Environment: AUTODD_BUNDLE_PYTHON  the Python with pip that does the install
#              (default python3; any version: the target is always 3.10+).
set -euo pipefail
EXT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPO="$(cd "$EXT_DIR/.." && pwd)"
PY="${AUTODD_BUNDLE_PYTHON:-python3}"
TARGET="${1:-$(node "$EXT_DIR/scripts/target.mjs")}"
# pip's platform tags of each target (pip widens macOS and manylinux tags to the older
# compatible ones), and the environment markers that hold there
case "$TARGET" in
  linux-x64)    PLATFORMS=(manylinux_2_17_x86_64 manylinux2014_x86_64); MARKERS='linux Linux x86_64 posix' ;;
  linux-arm64)  PLATFORMS=(manylinux_2_17_aarch64 manylinux2014_aarch64); MARKERS='linux Linux aarch64 posix' ;;
  darwin-x64)   PLATFORMS=(macosx_11_0_x86_64 macosx_10_12_x86_64); MARKERS='darwin Darwin x86_64 posix' ;;
  darwin-arm64) PLATFORMS=(macosx_11_0_arm64); MARKERS='darwin Darwin arm64 posix' ;;
  win32-x64)    PLATFORMS=(win_amd64); MARKERS='win32 Windows AMD64 nt' ;;
  *) echo "bundle-python.sh: no wheels known for target $TARGET" >&2; exit 2 ;;
esac
PLATFORM_ARGS=()
for p in "${PLATFORMS[@]}"; do PLATFORM_ARGS+=(--platform "$p"); done
LIBS="$EXT_DIR/bundled/libs"
WHEELS="$(mktemp -d "${TMPDIR:-/tmp}/autodd-bundle.XXXXXX")"
trap 'rm -rf "$WHEELS"' EXIT

rm -rf "$LIBS"
mkdir -p "$LIBS"
# 1. the repository's package as a wheel (pure Python), without its dependencies, built
#    from a copy so that setuptools leaves no build/ or *.egg-info in the checkout
#    (AUTODD_BUNDLE_WHEEL_DIR: a folder that already holds it, as package.mjs passes for
#    its second and later targets: the wheel is the same for every platform)
if [ -n "${AUTODD_BUNDLE_WHEEL_DIR:-}" ] && compgen -G "$AUTODD_BUNDLE_WHEEL_DIR/autodd_lsp-*.whl" >/dev/null; then
  cp "$AUTODD_BUNDLE_WHEEL_DIR"/autodd_lsp-*.whl "$WHEELS/"
else
  mkdir -p "$WHEELS/src"
  cp -r "$REPO/pyproject.toml" "$REPO/README.md" "$REPO/autodd_lsp" "$WHEELS/src/"
  cp "$REPO"/LICEN[CS]E* "$WHEELS/src/" 2>/dev/null || true
  find "$WHEELS/src" -name __pycache__ -type d -prune -exec rm -rf {} +
  "$PY" -m pip wheel --quiet --no-deps --wheel-dir "$WHEELS" "$WHEELS/src"
  if [ -n "${AUTODD_BUNDLE_WHEEL_DIR:-}" ]; then cp "$WHEELS"/autodd_lsp-*.whl "$AUTODD_BUNDLE_WHEEL_DIR/"; fi
fi
# 2. that wheel and its dependencies, as binary wheels for Python 3.10 on TARGET
"$PY" -m pip install --quiet --disable-pip-version-check --no-compile --upgrade \
  --target "$LIBS" --python-version 3.10 "${PLATFORM_ARGS[@]}" --only-binary=:all: "$WHEELS"/autodd_lsp-*.whl
# 3. pip evaluates environment markers for the Python running it, not for
#    --python-version / --platform: add what the bundled distributions need on 3.10
#    on TARGET (e.g. cattrs' `exceptiongroup; python_version < '3.11'`), until
#    nothing is missing
while :; do
  # shellcheck disable=SC2086
  extra="$("$PY" - "$LIBS" $MARKERS <<'PYEOF'
import sys
from importlib.metadata import distributions
from pip._vendor.packaging.requirements import Requirement
from pip._vendor.packaging.utils import canonicalize_name

libs = sys.argv[1]
dists = list(distributions(path=[libs]))
have = {canonicalize_name(d.metadata["Name"]) for d in dists}
env = {"python_version": "3.10", "python_full_version": "3.10.0", "extra": "",
       "sys_platform": sys.argv[2], "platform_system": sys.argv[3], "platform_machine": sys.argv[4],
       "os_name": sys.argv[5]}
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
    --target "$LIBS" --python-version 3.10 "${PLATFORM_ARGS[@]}" --only-binary=:all: $extra
done
# 4. distributions with a module compiled for CPython 3.10 only (`name==version` from their
#    RECORD): the same version's wheel for each newer CPython, its tagged modules copied in
# shellcheck disable=SC2207
TAGGED=($("$PY" - "$LIBS" <<'PYEOF'
import re
import sys
from importlib.metadata import distributions

for d in distributions(path=[sys.argv[1]]):
    if any(re.search(r"\.(cpython-310|cp310)[-.]", str(f)) for f in d.files or ()):
        print(f"{d.metadata['Name']}=={d.version}")
PYEOF
))
for version in 3.11 3.12 3.13 3.14; do
  [ "${#TAGGED[@]}" -gt 0 ] || break
  tag="${version/./}"
  rm -rf "$WHEELS/cp$tag"
  "$PY" -m pip install --quiet --disable-pip-version-check --no-compile --no-deps \
    --target "$WHEELS/cp$tag" --python-version "$version" "${PLATFORM_ARGS[@]}" --only-binary=:all: "${TAGGED[@]}"
  (cd "$WHEELS/cp$tag" && find . -type f \( -name "*.cpython-$tag-*" -o -name "*.cp$tag-*" \) \
    -exec cp --parents {} "$LIBS/" \;)
done
find "$LIBS" -name __pycache__ -type d -prune -exec rm -rf {} +
# only ruff's binary is run from bin/ (by the tidy pass); the rest are console scripts
find "$LIBS/bin" -type f ! -name ruff ! -name ruff.exe -delete
test -f "$LIBS/bin/ruff" || test -f "$LIBS/bin/ruff.exe"
echo "bundled into $LIBS for $TARGET: $(ls "$LIBS" | grep -c 'dist-info$') distributions, $(du -sh "$LIBS" | cut -f1)"

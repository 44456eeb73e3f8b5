#!/usr/bin/env bash
# End-to-end tests of the AutoDD VS Code extension in a real VS Code (code-server).
#
# On a fresh Debian machine, as root: installs what it needs (apt: chromium, ripgrep,
# libkrb5-dev, pkg-config; npm ci; code-server 4.100.3 under .e2e/), builds and
# packages the .vsix, installs it into a scratch code-server, and runs
#   (a) extension-host checks (test/e2e/host/index.js via extensionTestsPath) and
#   (b) a puppeteer-driven UI flow (test/e2e/driver.mjs),
# plus the unit tests, the type check (`npm run typecheck`: tsc --noEmit) and the lint
# (`npm run lint`: eslint). Prints PASS/FAIL per check and a final "N passed, M failed";
# exits non-zero on any failure. Cleans up every process it started, even on failure.
#
# Environment:
#   AUTODD_TEST_PYTHON     the interpreter the extension is set to (autodd.interpreter), which
#                          runs the bundled server and the candidates (default python3);
#                          "bare": a fresh `python3 -m venv --without-pip` with no packages at all
#   AUTODD_E2E_VSIX_FROM   "worktree" (default): package this working tree; "clean": clone the
#                          commit checked out here into the scratch folder, `npm ci` and
#                          `npm run package` there, and test that build (host phase included)
#   AUTODD_E2E_RESULTS     results folder (default vscode-extension/.e2e/results)
#   AUTODD_E2E_PHASES      comma-separated, from host,ui,kinds,gemm. Default: host,ui, plus
#                          kinds ("keep this wrong answer" picked in the quick pick on a numpy
#                          program) when AUTODD_TEST_PYTHON can import numpy, plus gemm (minimize
#                          examples/autodd/gemm_bug.py through the UI, ~3 min) when it can
#                          import tilelang and torch
#   AUTODD_E2E_HOST_ONLY   comma-separated names of the host checks to run (default: all)
#   AUTODD_E2E_SKIP_SERVER 1: host checks without the language server (plumbing only)
#   AUTODD_E2E_TIMEOUT     seconds for the browser-driven part (default 1500)

set -uo pipefail

EXT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
E2E_DIR="$EXT_DIR/.e2e"
RESULTS="${AUTODD_E2E_RESULTS:-$E2E_DIR/results}"
PY="${AUTODD_TEST_PYTHON:-python3}"
VSIX_FROM="${AUTODD_E2E_VSIX_FROM:-worktree}"
PHASES="${AUTODD_E2E_PHASES:-}"
CS_VERSION=4.100.3
CS_DIR="$E2E_DIR/code-server"
CS_BIN="$CS_DIR/node_modules/.bin/code-server"
RUN_ID="autodd-e2e-$$-$RANDOM"
START=$(date +%s)

rm -rf "$RESULTS"
mkdir -p "$RESULTS/logs"
CHECKS="$RESULTS/checks.tsv"
: >"$CHECKS"
SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/autodd-e2e.XXXXXX")"
CS_PID=""
DRIVER_PID=""

say() { printf '[e2e %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

record() { # record PASS|FAIL name [detail]
  printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >>"$CHECKS"
  say "$1 $2${3:+ ($3)}"
}

# step NAME CMD...: runs CMD with its output in logs/, records PASS/FAIL, returns its status.
step() {
  local name="$1"; shift
  local logf="$RESULTS/logs/$(printf '%s' "$name" | tr -c 'A-Za-z0-9' '_' | cut -c1-60).log"
  say "$name ..."
  if "$@" >"$logf" 2>&1; then
    record PASS "$name"
    return 0
  fi
  local rc=$?
  record FAIL "$name" "exit $rc; last lines: $(tail -n 5 "$logf" | tr '\n' ' ' | cut -c1-400)"
  return $rc
}

kill_group() { # kill_group PID: TERM the process group led by PID, then KILL after a grace period
  local pid="$1"
  [ -n "$pid" ] || return 0
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 50); do
    kill -0 -- "-$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL -- "-$pid" 2>/dev/null || true
}

# Every process this run started carries AUTODD_E2E_RUN_ID=$RUN_ID in its environment
# (language servers and candidate programs may leave the process groups above).
kill_marked() {
  local sig="$1" pid
  for env_file in /proc/[0-9]*/environ; do
    pid="${env_file#/proc/}"; pid="${pid%/environ}"
    [ "$pid" = "$$" ] && continue
    if { tr '\0' '\n' <"$env_file"; } 2>/dev/null | grep -qx "AUTODD_E2E_RUN_ID=$RUN_ID"; then
      kill "-$sig" "$pid" 2>/dev/null || true
    fi
  done
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  kill_group "$DRIVER_PID"
  kill_group "$CS_PID"
  kill_marked TERM
  sleep 0.5
  kill_marked KILL
  if [ -d "$SCRATCH/user-data/logs" ]; then
    cp -r "$SCRATCH/user-data/logs" "$RESULTS/logs/code-server-logs" 2>/dev/null || true
  fi
  rm -rf "$SCRATCH"
  exit "$rc"
}
trap cleanup EXIT

summary() {
  local passed failed elapsed
  passed=$(grep -c '^PASS' "$CHECKS" || true)
  failed=$(grep -c '^FAIL' "$CHECKS" || true)
  elapsed=$(( $(date +%s) - START ))
  echo
  echo "================ AutoDD VS Code extension: end-to-end summary ================"
  while IFS=$'\t' read -r status name detail; do
    if [ "$status" = FAIL ]; then
      printf '%s  %s\n        %s\n' "$status" "$name" "$detail"
    else
      printf '%s  %s\n' "$status" "$name"
    fi
  done <"$CHECKS"
  echo "results, screenshots and logs: $RESULTS  (took ${elapsed} s)"
  if [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]; then echo "RESULT: PASS"; else echo "RESULT: FAIL"; fi
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
}

finish() { summary; exit $?; }

on_signal() {
  trap - INT TERM
  record FAIL "interrupted by a signal"
  summary
  exit 130
}
trap on_signal INT TERM

# ------------------------------------------------------------------ setup

install_system_packages() {
  local missing=()
  command -v chromium >/dev/null || missing+=(chromium)
  command -v rg >/dev/null || missing+=(ripgrep)
  dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
  command -v pkg-config >/dev/null || missing+=(pkg-config)
  [ ${#missing[@]} -eq 0 ] && { echo "all present"; return 0; }
  if [ "$(id -u)" != 0 ]; then echo "missing ${missing[*]} and not root"; return 1; fi
  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y libkrb5-dev pkg-config ripgrep chromium
}

# @vscode/ripgrep (a code-server dependency) downloads a release archive from GitHub;
# give it Debian's rg in its download cache instead.
seed_ripgrep_cache() {
  local arch target cache
  case "$(uname -m)" in
    x86_64) target=x86_64-unknown-linux-musl ;;
    aarch64) target=aarch64-unknown-linux-gnu ;;
    *) target="$(uname -m)-unknown-linux-gnu" ;;
  esac
  cache="${TMPDIR:-/tmp}/vscode-ripgrep-cache-1.15.11"
  mkdir -p "$cache" "$SCRATCH/rg"
  cp "$(command -v rg)" "$SCRATCH/rg/rg"
  tar czf "$cache/ripgrep-v13.0.0-10-$target.tar.gz" -C "$SCRATCH/rg" rg
}

npm_ci() {
  cd "$EXT_DIR" || return 1
  local want have=""
  want=$(sha256sum package-lock.json | cut -d' ' -f1)
  [ -f node_modules/.autodd-npm-ci.stamp ] && have=$(cat node_modules/.autodd-npm-ci.stamp)
  if [ "$want" = "$have" ]; then echo "node_modules up to date with package-lock.json"; return 0; fi
  npm ci --no-audit --no-fund && echo "$want" >node_modules/.autodd-npm-ci.stamp
}

install_code_server() {
  if [ -x "$CS_BIN" ] && "$CS_BIN" --version 2>/dev/null | grep -q "^$CS_VERSION"; then
    echo "code-server $CS_VERSION already installed"; return 0
  fi
  rm -rf "$CS_DIR" && mkdir -p "$CS_DIR" && cd "$CS_DIR" || return 1
  echo '{"name":"autodd-e2e-code-server","private":true}' >package.json
  npm_config_yes=true npm_config_unsafe_perm=true \
    npm install --no-audit --no-fund --no-save "code-server@$CS_VERSION" && "$CS_BIN" --version
}

unit_tests() {
  cd "$EXT_DIR" || return 1
  local out="$RESULTS/logs/unit-tests.log" rc
  npm run --silent build:tests >"$out" 2>&1 || { record FAIL "unit tests: compile" "$(tail -n 5 "$out" | tr '\n' ' ')"; return 1; }
  node --test --test-reporter=tap out/test/unit/ >>"$out" 2>&1
  rc=$?
  # leaf tests are the indented "ok"/"not ok" lines inside each describe()
  while IFS= read -r line; do
    case "$line" in
      "    ok "*) record PASS "unit: ${line#*- }" ;;
      "    not ok "*) record FAIL "unit: ${line#*- }" "see logs/unit-tests.log" ;;
    esac
  done <"$out"
  return $rc
}

free_port() {
  node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

wait_healthy() { # wait_healthy PORT SECONDS
  node -e "
    const deadline = Date.now() + $2 * 1000;
    (async () => {
      while (Date.now() < deadline) {
        try { const r = await fetch('http://127.0.0.1:$1/healthz'); if (r.ok) { console.log(await r.text()); process.exit(0); } } catch {}
        await new Promise((r) => setTimeout(r, 300));
      }
      process.exit(1);
    })();"
}

write_user_settings() {
  mkdir -p "$SCRATCH/user-data/User"
  node -e '
    const fs = require("fs");
    fs.writeFileSync(process.argv[1], JSON.stringify({
      "autodd.interpreter": process.argv[2],
      "autodd.timeout": 20,
      "security.workspace.trust.enabled": false,
      "workbench.startupEditor": "none",
      "workbench.tips.enabled": false,
      "workbench.welcomePage.walkthroughs.openOnInstall": false,
      "workbench.editor.enablePreview": false,
      "telemetry.telemetryLevel": "off",
      "update.mode": "none",
      "extensions.autoUpdate": false,
      "extensions.autoCheckUpdates": false,
      "extensions.ignoreRecommendations": true,
      "editor.minimap.enabled": false,
      "files.hotExit": "off",
      "git.enabled": false,
      "window.restoreWindows": "none",
      "chat.commandCenter.enabled": false
    }, null, 2));' "$SCRATCH/user-data/User/settings.json" "$PY"
}

# A clean checkout of the commit checked out here, built as a user would build it.
package_clean_checkout() ( # a subshell: the cd stays inside
  local repo commit
  repo="$(git -C "$EXT_DIR" rev-parse --show-toplevel)" && commit="$(git -C "$EXT_DIR" rev-parse HEAD)" || return 1
  git clone --quiet --no-checkout "$repo" "$SCRATCH/clean" && git -C "$SCRATCH/clean" checkout --quiet "$commit" || return 1
  echo "clean checkout of $commit in $SCRATCH/clean"
  cd "$SCRATCH/clean/vscode-extension" && npm ci --prefer-offline --no-audit --no-fund && AUTODD_VSIX_TARGETS="${AUTODD_VSIX_TARGETS:-host}" npm run package &&
    test -f dist/autodd-vscode.vsix
)

if [ "$PY" = bare ]; then
  PY="$SCRATCH/bare-venv/bin/python"
  python3 -m venv --without-pip "$SCRATCH/bare-venv" || { echo "python3 -m venv failed"; exit 1; }
fi
say "results in $RESULTS; scratch in $SCRATCH; python: $PY; .vsix from: $VSIX_FROM"

step "setup: Debian packages (chromium, ripgrep, libkrb5-dev, pkg-config)" install_system_packages || finish
step "setup: seed @vscode/ripgrep's cache with Debian's rg" seed_ripgrep_cache || finish
step "setup: npm ci" npm_ci || finish
step "setup: code-server $CS_VERSION under .e2e/" install_code_server || finish
unit_tests
step "check: npm run typecheck (tsc --noEmit)" bash -c "cd '$EXT_DIR' && npm run --silent typecheck"
step "check: npm run lint (eslint)" bash -c "cd '$EXT_DIR' && npm run --silent lint"
if [ "$VSIX_FROM" = clean ]; then
  step "build: a clean checkout, npm ci && npm run package (.vsix)" package_clean_checkout || finish
  EXT_UNDER_TEST="$SCRATCH/clean/vscode-extension"
else
  step "build: npm run package (.vsix)" bash -c "cd '$EXT_DIR' && AUTODD_VSIX_TARGETS=\"${AUTODD_VSIX_TARGETS:-host}\" npm run package && test -f dist/autodd-vscode.vsix" || finish
  EXT_UNDER_TEST="$EXT_DIR"
fi
VSIX="$EXT_UNDER_TEST/dist/autodd-vscode.vsix"
step "build: the .vsix names its platform and bundles the server" bash -c \
  "unzip -p '$VSIX' extension.vsixmanifest | grep -o 'TargetPlatform=\"[a-z0-9-]*\"' && unzip -l '$VSIX' | grep -E 'bundled/(tool/autodd_server.py|libs/autodd_lsp/__init__.py|libs/bin/ruff)\$' && ls -l '$VSIX'" || finish
if [ "${AUTODD_E2E_SKIP_SERVER:-0}" != 1 ]; then
  step "python: $PY runs the bundled server (bundled/tool/autodd_server.py --check)" \
    "$PY" "$EXT_UNDER_TEST/bundled/tool/autodd_server.py" --check || finish
fi

if [ -z "$PHASES" ]; then
  PHASES=host,ui
  if [ "${AUTODD_E2E_SKIP_SERVER:-0}" != 1 ] && "$PY" -c "import numpy" >/dev/null 2>&1; then
    PHASES=$PHASES,kinds
  fi
  if [ "${AUTODD_E2E_SKIP_SERVER:-0}" != 1 ] && "$PY" -c "import tilelang, torch" >/dev/null 2>&1; then
    PHASES=$PHASES,gemm
  fi
fi
say "phases: $PHASES"

# ------------------------------------------------------------ code-server

mkdir -p "$SCRATCH/user-data" "$SCRATCH/extensions" "$SCRATCH/xdg" "$SCRATCH/chromium"
cp -r "$EXT_DIR/test/fixtures/workspace" "$SCRATCH/ws-host"
cp -r "$EXT_DIR/test/fixtures/workspace" "$SCRATCH/ws-ui"
case ",$PHASES," in
  *,gemm,*) cp "$EXT_DIR/../examples/autodd/gemm_bug.py" "$SCRATCH/ws-ui/" ;;
esac
write_user_settings
CS_ARGS=(--user-data-dir "$SCRATCH/user-data" --extensions-dir "$SCRATCH/extensions")
step "install the .vsix into code-server" \
  env XDG_CONFIG_HOME="$SCRATCH/xdg" AUTODD_E2E_RUN_ID="$RUN_ID" "$CS_BIN" "${CS_ARGS[@]}" --install-extension "$VSIX" || finish

PORT=$(free_port)
say "starting code-server on 127.0.0.1:$PORT"
env XDG_CONFIG_HOME="$SCRATCH/xdg" AUTODD_E2E_RUN_ID="$RUN_ID" \
  AUTODD_E2E_HOST_RESULTS="$SCRATCH/host-results.json" \
  AUTODD_E2E_SKIP_SERVER="${AUTODD_E2E_SKIP_SERVER:-0}" \
  setsid "$CS_BIN" "${CS_ARGS[@]}" --auth none --bind-addr "127.0.0.1:$PORT" \
  --disable-telemetry --disable-workspace-trust --disable-update-check \
  >"$RESULTS/logs/code-server.log" 2>&1 </dev/null &
CS_PID=$!
step "code-server answers /healthz" wait_healthy "$PORT" 60 || finish

say "driving the workbench (phases: $PHASES)"
env AUTODD_E2E_RUN_ID="$RUN_ID" E2E_PORT="$PORT" E2E_RESULTS="$RESULTS" E2E_CHECKS="$CHECKS" \
  E2E_PHASES="$PHASES" E2E_HOST_WORKSPACE="$SCRATCH/ws-host" E2E_UI_WORKSPACE="$SCRATCH/ws-ui" \
  E2E_USER_DATA="$SCRATCH/user-data" \
  E2E_EXTENSION_DEV_PATH="$EXT_UNDER_TEST" E2E_HOST_TESTS="$EXT_UNDER_TEST/test/e2e/host/index.js" \
  AUTODD_E2E_HOST_RESULTS="$SCRATCH/host-results.json" E2E_CHROMIUM_PROFILE="$SCRATCH/chromium" \
  setsid timeout --kill-after=10 "${AUTODD_E2E_TIMEOUT:-1500}" node "$EXT_UNDER_TEST/test/e2e/driver.mjs" \
  >"$RESULTS/logs/driver.log" 2>&1 </dev/null &
DRIVER_PID=$!
wait "$DRIVER_PID"
DRIVER_RC=$?
DRIVER_PID=""
if [ "$DRIVER_RC" -ne 0 ] && ! grep -q '^FAIL' "$CHECKS"; then
  record FAIL "driver exited with $DRIVER_RC" "$(tail -n 5 "$RESULTS/logs/driver.log" | tr '\n' ' ' | cut -c1-400)"
fi
cp "$SCRATCH/host-results.json" "$RESULTS/" 2>/dev/null || true
finish

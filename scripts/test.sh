#!/usr/bin/env bash
# Install everything the tests need and run them all: the Python suite (engine,
# CLI, freeze grammar, language server, Neovim and Emacs/eglot sessions, TileLang example), the
# documentation site's strict build, and the VS Code extension in a real VS Code (code-server).
# AUTODD_SKIP_VSCODE=1 skips the latter.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup-venv.sh tilelang,test,ray,docs
if { ! command -v nvim >/dev/null 2>&1 || ! command -v emacs >/dev/null 2>&1; } && [ "$(id -u)" = 0 ]; then
    (apt-get update -qq && apt-get install -y -qq neovim emacs-nox elpa-eglot >/dev/null) \
        || echo "neovim / emacs not installed: the editor tests will be skipped"
fi
# Lint and types first (rules in pyproject.toml's [tool.ruff] and [tool.mypy]); a finding fails
# the run before any test.
python -m ruff check autodd_lsp tests benchmarks scripts
python -m mypy
# The documentation (mkdocs.yml, docs/; its option tables generated from the code by
# scripts/docs_hooks.py): strict, so a broken link or anchor, or a page left out of the nav,
# fails the run. Into a temporary folder, removed after.
site="$(mktemp -d "${TMPDIR:-/tmp}/autodd-site.XXXXXX")"
python -m mkdocs build --strict --quiet --site-dir "$site"
rm -rf "$site"
python -m pytest "$@"
if [ "${AUTODD_SKIP_VSCODE:-0}" != 1 ]; then
    AUTODD_TEST_PYTHON="$PWD/.venv/bin/python" bash vscode-extension/scripts/test-e2e.sh
    # the one-step install: the .vsix with an interpreter that has nothing but Python
    AUTODD_TEST_PYTHON=bare AUTODD_E2E_PHASES=ui AUTODD_E2E_RESULTS="$PWD/vscode-extension/.e2e/results-bare" \
        bash vscode-extension/scripts/test-e2e.sh
fi

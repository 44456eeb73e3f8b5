"""`python -m autodd_lsp.server` starts the language server."""

from autodd_lsp.server.command import main

if __name__ == "__main__":
    raise SystemExit(main())

"""`python -m autodd_lsp` is the `autodd` command."""

from autodd_lsp.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())

"""The AutoDD language server (pygls): freeze diagnostics, code actions, and minimization runs.

Start it with `autodd-lsp` or `python -m autodd_lsp.server`; see notes/server.md for the protocol.
"""

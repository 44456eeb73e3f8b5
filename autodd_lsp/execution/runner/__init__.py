"""The `runner` backend: a warm fork server per job slot, one fresh fork per candidate.

Two sides, by role (see notes/execution.md, "The fork server's files"):

- the server, run by the candidates' interpreter as a standalone script:
  `server_main.py` (entry: preload, taint checks, warm-up), `serve_loop.py` (the
  serve loop), `child.py` (a child's set-up and run), `wire.py` (the channel and
  process helpers, shared with the client and with subproc/capture). These four
  use the standard library only and Python 3.9 syntax, and reach each other by
  relative imports only: the entry loads them by file location as a private
  package, so this `__init__` is never run by the server and must stay empty of
  imports (importing `runner.wire` from `capture` must not pull in the client);
- the client, imported as `autodd_lsp.execution.runner.*`: `client.py`
  (`ForkServerBackend`), `warm_servers.py` (one server process, the slots'
  warm-up), `scratch.py` (files that travel with a request), `learning.py`
  (which learned imports are worth a restart), `fallback.py` (the subproc
  fallback and its notice).
"""

"""The scratch of a reduction's runs: a temporary folder and a TileLang kernel cache of its own.

Every run of a reduction (the original's, candidates', the recording, the final check)
gets two folders inside the job slots' private temporary folder, removed with it at the
end and swept with it when the run was killed (`files.sweep_stale_tempdirs`):

- `TMPDIR`: what a program writes to the temporary folder goes there. A run of a
  TileLang CPU kernel leaves its generated C++ and shared library there (`tmp*.cpp`,
  `tmp*.so`, never removed by TileLang): a thousand candidates left thousands of files
  in /tmp.
- `TILELANG_CACHE_DIR`, an empty kernel cache. With the user's cache (~/.tilelang/cache)
  the original's runs found every kernel compiled, and the adaptive timeout (5x a warm
  run, `timeouts.adaptive_timeout`) was shorter than compiling one kernel: every
  candidate that edited a kernel of a failure shown after compiling (a wrong answer)
  timed out and was refused, so kernels stayed whole; and every candidate's kernel went
  into the user's cache. Now the original's first run compiles into the empty cache. If
  it wrote anything, the failure shows after compiling, and a candidate may take twice
  that first, cold run (`compiled`, read by `original.py`). A failure raised while
  tracing (nothing compiled) keeps the tight timeout: a kernel that no longer fails there
  goes on to compile, and the timeout says no sooner.

A program without TileLang never reads the cache's variable. On Ray only where every node
is this machine (`ray_connect.nodes_share_files`): the folders are paths on this machine,
which a remote node would make anew and keep. Before issue 42 Ray never had them, and on a
local cluster a TileLang program's candidates left their `tmp*.cpp` and `tmp*.so` in /tmp,
filled the user's kernel cache, and met the short timeout above: `tilelang_two`
(`benchmarks/corpus/`) ended at 565 AST nodes on Ray against 547 at -j 1.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

KERNEL_CACHE = "TILELANG_CACHE_DIR"
TEMPORARY = "TMPDIR"


def scratch_env(root: str) -> dict[str, str]:
    """The environment that gives the runs their folders in `root` (created here)."""
    env = {KERNEL_CACHE: os.path.join(root, "kernels"), TEMPORARY: os.path.join(root, "tmp")}
    for folder in env.values():
        os.makedirs(folder, exist_ok=True)
    return env


def without_scratch(env: Mapping[str, str]) -> dict[str, str]:
    """`env` less the runs' folders (for runs after they were removed)."""
    return {name: value for name, value in env.items() if name not in (KERNEL_CACHE, TEMPORARY)}


def compiled(env: Mapping[str, str]) -> bool:
    """Whether the runs with `env` compiled a kernel into their own cache."""
    folder = env.get(KERNEL_CACHE)
    return folder is not None and any(files for _root, _folders, files in os.walk(folder))

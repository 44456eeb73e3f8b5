"""The trial run: one run of the program, as `python file.py` would run it, outside any reduction.

What a person asks for before choosing the failure to keep (`autodd SOURCE`
without a failure, the editor's "suggest a message"): `engine/asking/question.py`
reads its run. Both front ends use it. ("Probe" is the frozen-code check's
word, `frozen_probe.py`; this is not one.)
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING

from autodd_lsp.engine.candidate.slots import JobSlots
from autodd_lsp.engine.lifecycle.options import BACKENDS, RunOptions
from autodd_lsp.engine.rules.operand_probe import probed_text, split_markers
from autodd_lsp.engine.spec.errors import UsageError
from autodd_lsp.engine.spec.pytest_target import PYTEST_ENV
from autodd_lsp.files import read_python_source, source_bytes

if TYPE_CHECKING:
    from autodd_lsp.execution import RunResult


def trial_run(
    source_path: str,
    options: RunOptions,
    *,
    text: str | None = None,
    backend: str = "subproc",
    cancel: threading.Event | None = None,
) -> RunResult:
    """Run the program once, as `python source_path` would, and return the backend's RunResult.

    `text`, when given, is run instead of the file's content (an editor's unsaved
    buffer); it runs from a hidden file beside the source, as reduction
    candidates do (engine/candidate/slots.py). A plain interpreter (`subproc`) is the default
    backend: one run does not pay for a warm one. The failure to keep is not used. With
    `options.test` the test runs under pytest, as the reduction's candidates do.
    """
    from autodd_lsp.execution.gpus import GpuPool
    from autodd_lsp.execution.launcher import Launcher
    from autodd_lsp.inlining.project import import_roots

    if backend not in BACKENDS:
        raise UsageError(f"unknown backend {backend!r} (choose from {', '.join(BACKENDS)})")
    options = options.run_options()  # a ReduceOptions is one too: only how to run matters here
    options.validate()
    source_path = os.path.abspath(source_path)
    if not os.path.isfile(source_path):
        raise UsageError(f"no such file: {source_path}")
    folder = os.path.dirname(source_path)
    # An unsaved buffer runs from a hidden file beside the source, as reduction candidates do.
    if not options.test:
        probed = probed_text(text if text is not None else read_python_source(source_path))
        text = probed if probed is not None else text
    slots = JobSlots(1, os.path.basename(source_path), beside=folder) if text is not None else None
    try:
        path = source_path
        if slots is not None and text is not None:
            path = slots.acquire()
            with open(path, "wb") as handle:
                handle.write(source_bytes(text))
        runner = Launcher(
            python=options.python,
            cwd=options.cwd or os.getcwd(),
            # a test's project's folders too, as the reduction's candidates have them (inlining/project.py)
            extra_sys_path=(*((folder,) if slots is not None else ()), *(import_roots(source_path) if options.test else ())),
            extra_env=PYTEST_ENV if options.test else {},
            output_limit=options.output_limit,
            gpus=GpuPool(options.gpu_ids[:1]) if options.gpu_ids else None,
            launch=options.launch(),
        ).backend(backend)
        with runner:
            result = runner.run(path, options.timeout, cancel)
        return split_markers(slots.unmasked(result) if slots is not None else result)
    finally:
        if slots is not None:
            slots.remove()

"""Running one minimizer on one case, with a wall-clock cap and size sampling."""

import os
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.measure import count_ast_nodes


@dataclass(frozen=True)
class ToolSpec:
    name: str
    module: str
    extra_args: tuple[str, ...]
    # Progress counter printed by the tool, and the stream it appears on.
    count_pattern: str
    count_stream: str
    # Whether the tool takes a failure without a message (--crash, --exit-code, --hang, --err-regex).
    takes_failure_flags: bool = True
    # Whether SOURCE may be a pytest node id (FILE.py::test_name[params]).
    takes_test_ids: bool = True


TOOLS = {
    "ours": ToolSpec(
        name="ours",
        module="autodd_lsp",
        extra_args=("--quiet",),
        count_pattern=r"([\d,]+) candidates run",
        count_stream="stderr",
    ),
    # The reference prints "Dispatched N tasks" every j-th candidate, so with
    # -j > 1 the last value is rounded down to a multiple of j.
    "reference": ToolSpec(
        name="reference",
        module="tilelang.autodd",
        extra_args=(),
        count_pattern=r"Dispatched (\d+) tasks",
        count_stream="stdout",
        takes_failure_flags=False,  # --err-msg only
        takes_test_ids=False,  # runs a file as a script
    ),
}


def subprocess_env() -> dict:
    """Environment for tools and repro checks: this interpreter's bin dir first,
    because the reference's subproc backend runs a bare `python3` from PATH."""
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env["PYTHONUNBUFFERED"] = "1"
    return env


class SizeSampler(threading.Thread):
    """Polls the output file and records (seconds, AST nodes) whenever it changes.

    Both tools rewrite the output as they make progress; a read that catches a
    half-written file fails to parse and is skipped.
    """

    def __init__(self, path: Path, start: float, interval: float):
        super().__init__(daemon=True)
        self.path, self.start_time, self.interval = path, start, interval
        self.samples: list[tuple[float, int]] = []
        self._stop_event = threading.Event()
        self._last_stamp = None

    def run(self):
        while not self._stop_event.wait(self.interval):
            self.poll()

    def poll(self):
        try:
            stamp = self._stamp()
            if stamp == self._last_stamp:
                return
            text = self.path.read_text()
            # A file changed while we read it, or caught between truncation and
            # write (the reference uses write_text), is not a real state.
            if not text.strip() or self._stamp() != stamp:
                return
        except OSError:
            return
        nodes = count_ast_nodes(text)
        if nodes is not None:
            self._last_stamp = stamp
            self.samples.append((round(time.monotonic() - self.start_time, 3), nodes))

    def _stamp(self):
        stat = self.path.stat()
        return stat.st_mtime_ns, stat.st_size

    def finish(self) -> list[tuple[float, int]]:
        self._stop_event.set()
        self.join()
        self.poll()
        return self.samples


def build_command(tool: ToolSpec, source: Path, output: Path, err_msg: str, timeout: int, jobs: int,
                  flags: tuple[str, ...] = (), test: str = "", program_args: tuple[str, ...] = ()) -> list[str]:
    """The tool's command line; `flags` (a failure without a message) in place of --err-msg;
    `test`: SOURCE is that pytest node of the file."""
    if flags and not tool.takes_failure_flags:
        raise ValueError(f"{tool.name} takes only --err-msg, not {' '.join(flags)}")
    if test and not tool.takes_test_ids:
        raise ValueError(f"{tool.name} takes no pytest node id")
    return [
        sys.executable, "-m", tool.module, f"{source}::{test}" if test else str(source),
        *(flags or ("--err-msg", err_msg)),
        "-o", str(output),
        "--timeout", str(timeout),
        "-j", str(jobs),
        *tool.extra_args,
        *(("--", *program_args) if program_args else ()),
    ]


def run_tool(tool: ToolSpec, command: list[str], cwd: Path, output: Path, logs: Path,
             cap: float, interval: float) -> dict:
    """Run a tool to completion or until `cap` seconds; return its raw record."""
    output.unlink(missing_ok=True)
    stdout_log, stderr_log = Path(f"{logs}.out"), Path(f"{logs}.err")
    start = time.monotonic()
    sampler = SizeSampler(output, start, interval)
    with open(stdout_log, "w") as out, open(stderr_log, "w") as err:
        proc = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=err,
                                env=subprocess_env(), start_new_session=True)
        sampler.start()
        timed_out = _wait_or_kill(proc, cap)
    wall = time.monotonic() - start
    samples = sampler.finish()
    stdout, stderr = stdout_log.read_text(errors="replace"), stderr_log.read_text(errors="replace")
    return {
        "command": command,
        "returncode": proc.returncode,
        "timed_out": timed_out,
        "wall_s": round(wall, 2),
        "candidates": _last_count(tool, stdout, stderr),
        "samples": samples,
        "stderr_tail": _tail(stderr),
        "logs": [str(stdout_log), str(stderr_log)],
    }


def _wait_or_kill(proc: subprocess.Popen, cap: float) -> bool:
    """Wait up to `cap` seconds. Either way, kill what is left of the tool's
    session (candidate workers it spawned) so nothing outlives the run."""
    try:
        proc.wait(timeout=cap)
        timed_out = False
    except subprocess.TimeoutExpired:
        timed_out = True
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()
    return timed_out


def _last_count(tool: ToolSpec, stdout: str, stderr: str) -> int | None:
    text = stdout if tool.count_stream == "stdout" else stderr
    matches = re.findall(tool.count_pattern, text)
    return int(matches[-1].replace(",", "")) if matches else None


def _tail(text: str, lines: int = 5) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])

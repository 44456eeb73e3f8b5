"""Execution backends: every candidate must look like `python that_file.py`."""

from __future__ import annotations

import importlib.util
import json
import os
import resource
import signal
import sys
import textwrap
import threading
import time

import pytest

from autodd_lsp.execution import CancelEvent, RunResult, capture, create_backend
from autodd_lsp.execution.capture import TRUNCATION_MARK
from autodd_lsp.execution.runner.client import ForkServerBackend
from autodd_lsp.execution.subproc import SubprocessBackend
from tests.support import Beacon, wait_gone

BACKENDS = ["subproc", "runner"]


@pytest.fixture
def dirs(tmp_path):
    """A candidates folder, the original program's folder (extra_sys_path) and a cwd."""
    made = {name: tmp_path / name for name in ("candidates", "original", "work")}
    for folder in made.values():
        folder.mkdir()
    return made


def write(folder, name: str, source: str) -> str:
    path = folder / name
    path.write_text(textwrap.dedent(source))
    return str(path)


def make(name: str, dirs, expect_fork: bool = True, **kwargs):
    options = {"python": sys.executable, "cwd": str(dirs["work"]), "extra_sys_path": [str(dirs["original"])]}
    options.update(kwargs)
    backend = create_backend(name, **options)
    if name == "runner" and expect_fork:  # really forking, not quietly falling back
        assert isinstance(backend, ForkServerBackend)
        backend.start()
        assert backend.fallback is None, backend.fallback_reason
    return backend


def is_gone(pid: int, wait: float = 2.0) -> bool:
    """True once `pid` no longer runs (absent, or a zombie nobody reaped yet): waits on its exit."""
    return wait_gone(pid, wait)


@pytest.fixture(params=BACKENDS)
def backend_name(request):
    return request.param


# ------------------------------------------------------------ looks like `python file.py`


@pytest.mark.slow
def test_candidate_sees_a_plain_python_run(backend_name, dirs):
    write(dirs["original"], "sibling.py", "VALUE = 'from sibling'\n")
    path = write(
        dirs["candidates"],
        "cand.py",
        """
        import json, os, sys
        import sibling
        if __name__ == "__main__":
            print(json.dumps({
                "file": __file__, "argv": sys.argv, "stdin": sys.stdin.read(), "cwd": os.getcwd(),
                "path0": sys.path[0], "path1": sys.path[1], "executable": sys.executable,
                "sibling": sibling.VALUE, "globals": sorted(globals()),
            }))
        """,
    )
    with make(backend_name, dirs) as backend:
        result = backend.run(path, timeout=30)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["file"] == path and seen["argv"] == [path]
    assert seen["stdin"] == ""
    assert seen["cwd"] == str(dirs["work"])
    assert (seen["path0"], seen["path1"]) == (str(dirs["candidates"]), str(dirs["original"]))
    assert seen["executable"] == sys.executable
    assert seen["sibling"] == "from sibling"
    assert {"__file__", "__builtins__", "__loader__", "__spec__", "__name__"} <= set(seen["globals"])


@pytest.mark.slow
def test_output_is_captured_at_the_descriptor_level(backend_name, dirs):
    path = write(
        dirs["candidates"],
        "cand.py",
        """
        import ctypes, os, subprocess
        os.write(1, b"raw out\\n")
        os.write(2, b"raw err\\n")
        os.system("echo from shell")
        subprocess.run(["sh", "-c", "echo child err >&2"])
        ctypes.CDLL(None).printf(b"from C stdio\\n")  # buffered by libc until exit
        print("python print")
        """,
    )
    with make(backend_name, dirs) as backend:
        result = backend.run(path, timeout=30)
    assert result.returncode == 0
    for text in (b"raw out", b"from shell", b"from C stdio", b"python print"):
        assert text in result.stdout
    assert b"raw err" in result.stderr and b"child err" in result.stderr


@pytest.mark.slow
def test_huge_output_keeps_head_and_tail_in_bounded_memory(backend_name, dirs):
    limit = 1 << 20
    path = write(
        dirs["candidates"],
        "cand.py",
        """
        import os
        os.write(1, b"HEAD\\n")
        block = b"x" * (1 << 20)
        for _ in range(200):
            os.write(1, block)
        os.write(1, b"\\nTAIL\\n")
        """,
    )
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with make(backend_name, dirs, output_limit=limit) as backend:
        result = backend.run(path, timeout=60)
    growth_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before) / 1024
    assert result.returncode == 0 and result.truncated
    assert result.stdout.startswith(b"HEAD\n") and result.stdout.endswith(b"\nTAIL\n")
    assert len(result.stdout) <= limit and TRUNCATION_MARK in result.stdout
    assert growth_mb < 64, f"200 MB of output grew the reducer by {growth_mb:.0f} MB"


@pytest.mark.slow
def test_segfault_keeps_earlier_output(backend_name, dirs):
    path = write(
        dirs["candidates"],
        "cand.py",
        """
        import os, signal, sys
        print("before the crash", flush=True)
        sys.stderr.write("on stderr\\n")
        os.kill(os.getpid(), signal.SIGSEGV)
        """,
    )
    with make(backend_name, dirs) as backend:
        result = backend.run(path, timeout=30)
    assert result.returncode == -signal.SIGSEGV
    assert b"before the crash" in result.stdout and b"on stderr" in result.stderr


@pytest.mark.slow
def test_os_exit_keeps_flushed_output_and_code(backend_name, dirs):
    path = write(dirs["candidates"], "cand.py", "import os\nprint('kept', flush=True)\nos._exit(3)\n")
    with make(backend_name, dirs) as backend:
        result = backend.run(path, timeout=30)
    assert (result.returncode, result.stdout) == (3, b"kept\n")


HANGS_WITH_A_CHILD = """
import subprocess, time
child = subprocess.Popen(["sleep", "60"])
print(child.pid, flush=True)
time.sleep(60)
"""


@pytest.mark.slow
def test_hang_is_killed_with_its_children_at_the_timeout(backend_name, dirs):
    path = write(dirs["candidates"], "cand.py", HANGS_WITH_A_CHILD)
    with make(backend_name, dirs) as backend:
        started = time.monotonic()
        result = backend.run(path, timeout=1.0)
        elapsed = time.monotonic() - started
    assert result.timed_out and not result.cancelled
    assert result.returncode == -signal.SIGKILL
    assert 0.9 <= elapsed < 2.5
    assert is_gone(int(result.stdout.split()[0]))


@pytest.mark.slow
def test_cancel_stops_the_candidate_quickly(backend_name, dirs):
    path = write(dirs["candidates"], "cand.py", HANGS_WITH_A_CHILD)
    cancel = threading.Event()
    cancelled_at = []

    def set_cancel():
        cancelled_at.append(time.monotonic())
        cancel.set()

    with make(backend_name, dirs) as backend:
        threading.Timer(0.5, set_cancel).start()
        result = backend.run(path, timeout=30, cancel=cancel)
        stopped_after = time.monotonic() - cancelled_at[0]
    assert result.cancelled and not result.timed_out
    assert stopped_after < 0.25  # ~20-50 ms on an idle machine
    assert is_gone(int(result.stdout.split()[0]))


@pytest.mark.slow
def test_a_cancel_event_wakes_the_run_at_once(backend_name, dirs, monkeypatch):
    """With a CancelEvent the run does not wait for its next look at the flag (made 60 s here)."""
    monkeypatch.setattr(capture, "STOP_TICK", 60.0)
    path = write(dirs["candidates"], "cand.py", HANGS_WITH_A_CHILD)
    cancel = CancelEvent()
    with make(backend_name, dirs) as backend:
        threading.Timer(0.5, cancel.set).start()
        started = time.monotonic()
        result = backend.run(path, timeout=120, cancel=cancel)
    assert result.cancelled and time.monotonic() - started < 30
    assert is_gone(int(result.stdout.split()[0]))


@pytest.mark.slow
def test_close_while_running_leaves_no_process(backend_name, dirs, tmp_path):
    running = Beacon(tmp_path)
    path = write(dirs["candidates"], "cand.py", HANGS_WITH_A_CHILD.replace(
        "time.sleep(60)", f"open({str(running.path)!r}, 'w').close()\ntime.sleep(60)"))
    backend = make(backend_name, dirs)
    backend.start()
    box: dict[str, RunResult] = {}
    runner = threading.Thread(target=lambda: box.update(result=backend.run(path, timeout=30)))
    runner.start()
    running.wait()  # the candidate runs, its child started
    closing = time.monotonic()
    backend.close()
    runner.join(2.0)
    assert not runner.is_alive() and time.monotonic() - closing < 1.5
    result = box["result"]
    assert result.cancelled
    assert is_gone(int(result.stdout.split()[0]))
    if backend_name == "runner":
        assert all(is_gone(pid) for pid in server_pids(backend))
    assert backend.run(path, timeout=30).cancelled  # closed for good
    backend.close()  # idempotent


@pytest.mark.slow
def test_escaped_grandchild_holding_the_pipes_is_not_waited_for(backend_name, dirs):
    path = write(
        dirs["candidates"],
        "cand.py",
        """
        import subprocess
        escaped = subprocess.Popen(["sleep", "60"], start_new_session=True)  # leaves our group
        print(escaped.pid, flush=True)
        """,
    )
    with make(backend_name, dirs) as backend:
        started = time.monotonic()
        result = backend.run(path, timeout=30)
        elapsed = time.monotonic() - started
    assert result.returncode == 0 and elapsed < 1.5
    assert is_gone(int(result.stdout.split()[0]))  # found through the pipe it still held


def slow_import(dirs, tmp_path) -> Beacon:
    """A module `slow_import` that takes 30 s to import; the Beacon says when its import began."""
    importing = Beacon(tmp_path)
    write(dirs["original"], "slow_import.py", f"open({str(importing.path)!r}, 'w').close()\nimport time\ntime.sleep(30)\n")
    return importing


@pytest.mark.slow
def test_close_during_warm_up_stops_at_once(dirs, tmp_path):
    importing = slow_import(dirs, tmp_path)
    backend = make("runner", dirs, expect_fork=False, preload=["slow_import"])
    starter = threading.Thread(target=backend.start)
    starter.start()
    importing.wait()  # the servers are warming up
    closing = time.monotonic()
    backend.close()
    starter.join(2.0)
    assert not starter.is_alive() and time.monotonic() - closing < 1.5
    assert all(is_gone(pid) for pid in server_pids(backend))


@pytest.mark.slow
def test_cancel_during_lazy_warm_up_returns_at_once(dirs, tmp_path):
    importing = slow_import(dirs, tmp_path)
    path = write(dirs["candidates"], "cand.py", "print('x')\n")
    backend = make("runner", dirs, expect_fork=False, preload=["slow_import"])
    cancel = threading.Event()
    cancelled_at: list[float] = []

    def cancel_once_warming_up() -> None:
        importing.wait()
        cancelled_at.append(time.monotonic())
        cancel.set()

    try:
        threading.Thread(target=cancel_once_warming_up, daemon=True).start()
        result = backend.run(path, timeout=60, cancel=cancel)  # start() happens in here
        assert result.cancelled and time.monotonic() - cancelled_at[0] < 0.5
    finally:
        backend.close()
    assert all(is_gone(pid) for pid in server_pids(backend))


def server_pids(backend: ForkServerBackend) -> list[int]:
    return [server.proc.pid for server in backend._warm.servers if server is not None]


@pytest.mark.slow
def test_concurrent_runs_overlap(backend_name, dirs):
    path = write(dirs["candidates"], "cand.py", "import time\ntime.sleep(1)\n")
    with make(backend_name, dirs, jobs=2) as backend:
        backend.run(path, timeout=30)  # warm: the interpreter's files are cached
        results = []
        started = time.monotonic()
        threads = [threading.Thread(target=lambda: results.append(backend.run(path, timeout=30))) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - started
    assert [r.returncode for r in results] == [0, 0]
    assert elapsed < 1.8


# ------------------------------------------------------------ runner == subproc


FAILING_PROGRAMS = {
    "traceback": """
        import json
        def parse(text):
            return json.loads(text)
        def main():
            try:
                parse("{")
            except ValueError as exc:
                raise RuntimeError("could not parse") from exc
        main()
        """,
    "syntax_error": "x = 1\ndef broken(:\n    pass\n",
    "exit_message": "import sys\nsys.exit('fatal: giving up')\n",
    "exit_code": "import sys\nprint('out')\nsys.exit(3)\n",
    "keyboard_interrupt": "raise KeyboardInterrupt\n",
    "forked_child_ends_first": """
        import os, sys
        child = os.fork()
        if child == 0:
            print("child done", flush=True)  # then ends like a script: it must not report for its parent
        else:
            os.waitpid(child, 0)
            print("parent done", flush=True)
            sys.exit(5)
        """,
    "thread_and_atexit": """
        import atexit, threading, time
        atexit.register(print, "atexit ran")
        def late():
            time.sleep(0.2)
            print("thread finished")
        threading.Thread(target=late).start()
        raise ValueError("main failed")
        """,
}


@pytest.mark.slow
@pytest.mark.parametrize("program", sorted(FAILING_PROGRAMS))
def test_runner_reports_exactly_like_subproc(program, dirs):
    path = write(dirs["candidates"], "cand.py", FAILING_PROGRAMS[program])
    results = {}
    for name in BACKENDS:
        with make(name, dirs, preload=["json"]) as backend:
            results[name] = backend.run(path, timeout=30)
    subproc, runner = results["subproc"], results["runner"]
    assert runner.stderr == subproc.stderr
    assert runner.stdout == subproc.stdout
    assert runner.returncode == subproc.returncode != 0


@pytest.mark.slow
def test_missing_file_is_reported_like_python(dirs):
    missing = str(dirs["candidates"] / "nope.py")
    results = {}
    for name in BACKENDS:
        with make(name, dirs) as backend:
            results[name] = backend.run(missing, timeout=30)
    assert results["runner"].stderr == results["subproc"].stderr
    assert results["runner"].returncode == results["subproc"].returncode == 2


@pytest.mark.slow
def test_candidate_gets_the_descriptors_of_a_plain_run(backend_name, dirs):
    path = write(dirs["candidates"], "cand.py", "import os\nprint(os.open(os.devnull, os.O_RDONLY))\n")
    with make(backend_name, dirs) as backend:
        result = backend.run(path, timeout=30)
    assert result.stdout == b"3\n"


# ------------------------------------------------------------ runner only


def child_pids(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as stat:
                if int(stat.read().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry))
        except (OSError, ValueError):
            continue
    return found


def spare_pids(backend: ForkServerBackend, not_these: list[int]) -> list[int]:
    """The waiting spare children of the backend's servers (forked ahead of the next request)."""
    end = time.monotonic() + 2.0
    while True:
        spares = [pid for server in server_pids(backend) for pid in child_pids(server) if pid not in not_these]
        if spares or time.monotonic() > end:
            return spares
        time.sleep(0.01)


@pytest.mark.slow
def test_spare_child_killed_while_waiting_is_replaced(dirs):
    path = write(dirs["candidates"], "cand.py", "import os\nprint(os.getpid())\n")
    with make("runner", dirs) as backend:
        ran = [int(backend.run(path, timeout=30).stdout)]
        spares = spare_pids(backend, ran)
        assert spares
        for pid in spares:
            os.kill(pid, signal.SIGKILL)
        assert all(is_gone(pid) for pid in spares)
        result = backend.run(path, timeout=30)
        ran.append(int(result.stdout))
        servers = server_pids(backend)
        spares = spare_pids(backend, ran)
        assert spares
    assert result.returncode == 0 and ran[1] not in spares
    assert all(is_gone(pid) for pid in servers + spares)  # close() leaves no spare behind


@pytest.mark.slow
def test_status_survives_a_candidate_taking_its_report_descriptor(dirs):
    from autodd_lsp.execution.runner.child import HIGH_FD

    high = min(HIGH_FD, os.sysconf("SC_OPEN_MAX") - 1)
    taken = write(
        dirs["candidates"],
        "taken.py",
        f"""
        import os, sys
        os.dup2(os.open("taken.txt", os.O_WRONLY | os.O_CREAT), {high})
        sys.exit(4)
        """,
    )
    closed = write(dirs["candidates"], "closed.py", "import os, sys\nos.closerange(3, 1 << 16)\nsys.exit(6)\n")
    with make("runner", dirs) as backend:
        assert backend.run(taken, timeout=30).returncode == 4
        assert backend.run(closed, timeout=30).returncode == 6
    assert (dirs["work"] / "taken.txt").read_bytes() == b""  # nothing reported into someone else's file



@pytest.mark.slow
def test_runner_candidates_cannot_influence_each_other(dirs):
    write(dirs["original"], "shared.py", "COUNTER = 0\n")
    polluter = write(
        dirs["candidates"],
        "a.py",
        """
        import logging, os, sys, threading, time
        import shared
        shared.COUNTER = 99
        logging.getLogger().addHandler(logging.StreamHandler())
        os.chdir("/")
        sys.argv.append("extra")
        sys.modules["injected"] = shared
        sys.path.append("/polluted")
        os.environ["POLLUTED"] = "1"
        threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
        """,
    )
    observer = write(
        dirs["candidates"],
        "b.py",
        """
        import json, logging, os, sys, threading
        import shared
        print(json.dumps({
            "counter": shared.COUNTER, "handlers": len(logging.getLogger().handlers), "cwd": os.getcwd(),
            "argv": sys.argv, "injected": "injected" in sys.modules, "polluted": "/polluted" in sys.path,
            "env": "POLLUTED" in os.environ, "threads": threading.active_count(),
        }))
        """,
    )
    with make("runner", dirs, preload=["shared", "logging"]) as backend:
        assert backend.run(polluter, timeout=30).returncode == 0
        result = backend.run(observer, timeout=30)
        assert backend.preloaded == ["shared", "logging"]
    seen = json.loads(result.stdout)
    assert seen == {
        "counter": 0, "handlers": 0, "cwd": str(dirs["work"]), "argv": [observer],
        "injected": False, "polluted": False, "env": False, "threads": 1,
    }


@pytest.mark.slow
def test_noisy_module_is_not_preloaded(dirs):
    write(dirs["original"], "noisy.py", "import os\nos.write(2, b'NOISY IMPORT\\n')\n")
    write(dirs["original"], "after.py", "AFTER = 1\n")
    path = write(dirs["candidates"], "cand.py", "import noisy\n")
    with make("runner", dirs, preload=["json", "noisy", "after"]) as backend:
        result = backend.run(path, timeout=30)
        assert backend.preloaded == ["json"]
        assert "noisy" in backend.skipped and "after" not in backend.preloaded
    assert b"NOISY IMPORT" in result.stderr


@pytest.mark.slow
def test_module_starting_a_thread_is_not_preloaded(dirs):
    write(
        dirs["original"],
        "threaded.py",
        "import threading, time\nthreading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n",
    )
    path = write(dirs["candidates"], "cand.py", "import threading, threaded\nprint(threading.active_count())\n")
    with make("runner", dirs, preload=["threaded"]) as backend:
        result = backend.run(path, timeout=30)
        assert backend.preloaded == [] and "thread" in backend.skipped["threaded"]
    assert result.stdout == b"2\n"


@pytest.mark.slow
def test_failing_preload_is_skipped(dirs):
    path = write(dirs["candidates"], "cand.py", "import does_not_exist\n")
    with make("runner", dirs, preload=["does_not_exist", "json"]) as backend:
        result = backend.run(path, timeout=30)
        assert backend.preloaded == ["json"] and "does_not_exist" in backend.skipped
    assert b"ModuleNotFoundError: No module named 'does_not_exist'" in result.stderr


@pytest.mark.slow
def test_dead_server_is_replaced_without_charging_the_warm_up(dirs):
    write(dirs["original"], "slow_import.py", "import time\ntime.sleep(1.0)\n")
    killer = write(dirs["candidates"], "killer.py", "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n")
    quick = write(dirs["candidates"], "quick.py", "print('fine')\n")
    with make("runner", dirs, preload=["slow_import"]) as backend:
        backend.run(killer, timeout=30)
        result = backend.run(quick, timeout=0.5)  # the new server needs 1 s to warm up
    assert not result.timed_out and result.stdout == b"fine\n"
    assert result.duration < 0.5


def test_runner_falls_back_when_the_server_cannot_start(dirs):
    path = write(dirs["candidates"], "cand.py", "print('hi')\n")
    fake_python = write(dirs["work"], "fake_python", "#!/bin/sh\nexec python3 -c 'raise SystemExit(\"no server here\")' \"$@\"\n")
    os.chmod(fake_python, 0o755)
    with make("runner", dirs, python=fake_python, expect_fork=False) as backend:
        result = backend.run(path, timeout=30)
        assert isinstance(backend.fallback, SubprocessBackend)
        assert "no server here" in backend.fallback_reason
    assert b"no server here" in result.stderr  # what `fake_python cand.py` itself says


@pytest.mark.slow
def test_runner_duration_excludes_warm_up(dirs):
    write(dirs["original"], "slow_import.py", "import time\ntime.sleep(0.5)\n")
    path = write(dirs["candidates"], "cand.py", "print('x')\n")
    backend = make("runner", dirs, expect_fork=False, preload=["slow_import"])
    try:
        result = backend.run(path, timeout=30)  # start() runs lazily here
        assert backend.fallback is None and backend.preloaded == ["slow_import"]
    finally:
        backend.close()
    assert result.returncode == 0 and result.duration < 0.4


# ------------------------------------------------------------ with TileLang


def tilelang_available() -> bool:
    return all(importlib.util.find_spec(name) for name in ("tilelang", "torch"))


@pytest.mark.slow
@pytest.mark.tilelang
@pytest.mark.skipif(not tilelang_available(), reason="needs tilelang and torch")
def test_tilelang_candidate_on_a_warm_runner(dirs):
    path = write(
        dirs["candidates"],
        "cand.py",
        """
        import inspect
        import tilelang
        import tilelang.language as T
        import torch

        def kernel(n):
            return torch.arange(n).sum().item()

        assert "torch.arange" in inspect.getsource(kernel)  # @tilelang.jit reads sources like this
        print(kernel(4))
        raise RuntimeError("reproduced")
        """,
    )
    with make("runner", dirs, preload=["tilelang", "tilelang.language", "torch"]) as backend:
        result = backend.run(path, timeout=60)
        assert backend.preloaded == ["tilelang", "tilelang.language", "torch"]
    assert result.stdout == b"6\n" and b"RuntimeError: reproduced" in result.stderr
    assert result.duration < 1.0


@pytest.mark.slow
def test_runner_preloads_what_the_program_imported_lazily(dirs):
    """After a `learn_imports` run, the servers restart with the modules that run imported."""
    path = write(
        dirs["candidates"],
        "lazy.py",
        """
        import sys
        print("preloaded" if "http.client" in sys.modules else "cold")
        def work():
            import http.client, email.mime.text, xml.dom.minidom, json, csv, decimal
        work()
        """,
    )
    with make("runner", dirs) as backend:
        first = backend.run(path, 30, learn_imports=True)
        assert first.stdout == b"cold\n"
        assert backend.learned_imports >= 20
        second = backend.run(path, 30)
    assert second.stdout == b"preloaded\n"
    assert "http.client" in backend.preloaded


@pytest.mark.slow
def test_runner_ignores_a_few_lazy_imports(dirs):
    """A couple of modules are not worth restarting the servers for."""
    source = "import sys\nprint('colorsys' in sys.modules)\ndef f():\n    import colorsys\nf()\n"
    path = write(dirs["candidates"], "few.py", source)
    with make("runner", dirs) as backend:
        backend.run(path, 30, learn_imports=True)
        assert backend.learned_imports == 0
        assert backend.run(path, 30).stdout == b"False\n"


@pytest.mark.slow
def test_a_module_launch_runs_like_python_dash_m(backend_name, dirs):
    """Launch("m", args): `python -m m args` with the candidate's path in them, on both backends."""
    from autodd_lsp.execution import FILE, Launch

    write(dirs["original"], "probe_main.py", """
        import json, os, sys
        print(json.dumps({"name": __name__, "argv": sys.argv, "path0": sys.path[0], "cwd": os.getcwd()}))
        sys.exit(3)
    """)
    path = write(dirs["candidates"], "cand.py", "print('the file itself is not run')\n")
    launch = Launch("probe_main", ("--file", FILE + "::node"))
    with make(backend_name, dirs, launch=launch) as backend:
        result = backend.run(path, timeout=30)
    assert result.returncode == 3, result.stderr
    seen = json.loads(result.stdout)
    assert seen["name"] == "__main__"
    assert seen["argv"] == [str(dirs["original"] / "probe_main.py"), "--file", path + "::node"]
    assert seen["path0"] == seen["cwd"] == str(dirs["work"])


@pytest.mark.slow
def test_the_fork_server_runs_from_its_own_files_under_a_python_without_autodd(tmp_path):
    """The entry's standalone constraint (server_main.py's docstring): a copy of the
    server's four files, run as the client runs them, by an interpreter that cannot
    import autodd_lsp (`-S`: no site-packages; `-E`: no PYTHONPATH), speaks the protocol
    and runs a candidate, which finds neither autodd_lsp nor the server's `wire`."""
    import shutil
    import socket
    import subprocess

    from autodd_lsp.execution.runner.warm_servers import SERVER_SCRIPT
    from autodd_lsp.execution.runner.wire import Channel

    server_dir = tmp_path / "server"
    server_dir.mkdir()
    for name in ("server_main.py", "serve_loop.py", "child.py", "wire.py"):
        shutil.copy(os.path.join(os.path.dirname(SERVER_SCRIPT), name), server_dir / name)
    candidate = write(
        tmp_path,
        "candidate.py",
        """
        import importlib.util, sys
        print(importlib.util.find_spec("autodd_lsp"), importlib.util.find_spec("wire"), "json" in sys.modules)
        sys.exit(3)
        """,
    )
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    diagnostics = tmp_path / "diagnostics"
    with open(diagnostics, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-S", "-E", str(server_dir / "server_main.py"), str(theirs.fileno())],
            pass_fds=[theirs.fileno()], cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
        )
    theirs.close()
    channel = Channel(ours)
    try:
        channel.send({"preload": ["json"]})
        message = channel.receive()
        while message is not None and "importing" in message:
            message = channel.receive()
        assert message is not None, diagnostics.read_text()
        assert message["ready"] and message["preloaded"] == ["json"] and message["tainted"] is None
        stdout_r, stdout_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        request = {"path": candidate, "cwd": str(tmp_path), "folder": str(tmp_path), "code": "", "imports": "",
                   "gpu": "", "module": "", "args": []}
        channel.send(request, fds=[stdout_w, stderr_w])
        os.close(stdout_w)
        os.close(stderr_w)
        assert "pid" in channel.receive()
        with os.fdopen(stdout_r, "rb") as stdout, os.fdopen(stderr_r, "rb") as stderr:
            assert (stdout.read(), stderr.read()) == (b"None None True\n", b"")
        assert channel.receive()["status"] == 3
    finally:
        ours.close()
        assert proc.wait(10) == 0

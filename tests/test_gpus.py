"""GPU pinning (`--gpus`), tested on a machine without GPUs: each run of the program prints,
into a log, the CUDA_VISIBLE_DEVICES it sees, and holds a lock named after it while it
runs, so two programs running at once with the same GPU would be caught."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autodd_lsp.engine import ReduceOptions, Reduction, UsageError
from autodd_lsp.execution import create_backend
from autodd_lsp.execution.gpus import parse_gpus, visible_gpus
from autodd_lsp.execution.runner.client import ForkServerBackend
from tests.support import assert_one_line_error, autodd

# The frozen part logs each run: the GPU it sees, and whether another running program held it.
PINNED = textwrap.dedent(
    """\
    # autodd: freeze-start
    import fcntl, os, time
    log = os.environ["GPU_LOG"]
    gpu = os.environ.get("CUDA_VISIBLE_DEVICES", "<unset>")
    lock = os.open(os.path.join(log, "gpu-" + gpu + ".lock"), os.O_CREAT | os.O_RDWR)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        shared = "alone"
    except OSError:
        shared = "SHARED"
    with open(os.path.join(log, "run-%d-%d" % (os.getpid(), time.monotonic_ns())), "w") as note:
        note.write(gpu + " " + shared)
    time.sleep(0.05)
    # autodd: end-freeze
    a = 1
    b = [a, 2, 3]
    c = {"x": b}
    d = len(c) + sum(b)
    print(d * 2)
    raise ValueError("pinned failure")
    """
)


def runs_seen(log: Path) -> list[tuple[str, ...]]:
    """(GPU, alone or SHARED) per run; a run cancelled before it wrote its note is left out."""
    notes = (note.read_text().split() for note in log.glob("run-*"))
    return [tuple(note) for note in notes if note]


@pytest.fixture
def gpu_log(tmp_path, monkeypatch):
    log = tmp_path / "log"
    log.mkdir()
    monkeypatch.setenv("GPU_LOG", str(log))
    return log


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["runner", "subproc"])
def test_each_run_sees_one_gpu_never_shared(backend, gpu_log, tmp_path, no_leftovers):
    source = tmp_path / "src" / "pinned.py"
    source.parent.mkdir()
    source.write_text(PINNED)
    options = ReduceOptions(err_msg="pinned failure", backend=backend, gpus="0,1,2")
    assert options.jobs == 3  # -j defaults to the number of GPUs given
    summary = Reduction(PINNED, str(source), options).run()
    assert summary.verified and "a = 1" not in summary.text
    seen = runs_seen(gpu_log)
    assert len(seen) >= 10
    # The original's checks, the candidates, the recording run and the final re-run: one GPU each, of those given.
    assert {gpu for gpu, _ in seen} == {"0", "1", "2"}
    assert all(shared == "alone" for _, shared in seen), seen
    assert sorted(os.listdir(source.parent)) == ["pinned.py"]


@pytest.mark.slow
def test_auto_takes_the_gpus_cuda_visible_devices_shows(gpu_log, tmp_path, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "4,7")
    source = tmp_path / "pinned.py"
    source.write_text(PINNED)
    options = ReduceOptions(err_msg="pinned failure", gpus="auto")
    assert options.gpu_ids == ("4", "7") and options.jobs == 2
    Reduction(PINNED, str(source), options).run()
    assert {gpu for gpu, _ in runs_seen(gpu_log)} == {"4", "7"}
    assert all(shared == "alone" for _, shared in runs_seen(gpu_log))


@pytest.mark.slow
def test_backend_pins_what_the_pool_gives(tmp_path):
    """The runner's child gets the GPU set before the program's first line, whatever the server had."""
    from autodd_lsp.execution.gpus import GpuPool

    path = tmp_path / "show.py"
    path.write_text("import os\nprint(os.environ.get('CUDA_VISIBLE_DEVICES'))\n")
    for name in ("runner", "subproc"):
        with create_backend(name, python=sys.executable, cwd=str(tmp_path), gpus=GpuPool(["3"])) as backend:
            assert backend.run(str(path), 30).stdout == b"3\n"
        with create_backend(name, python=sys.executable, cwd=str(tmp_path)) as backend:
            assert backend.run(str(path), 30).stdout.strip() == os.environ.get("CUDA_VISIBLE_DEVICES", "None").encode()


def test_gpu_ids_are_checked():
    assert parse_gpus("0, 1,2") == ["0", "1", "2"]
    assert parse_gpus("GPU-8f6c2a1e-1b2c-4d5e-9f00-0123456789ab") == ["GPU-8f6c2a1e-1b2c-4d5e-9f00-0123456789ab"]
    assert visible_gpus({"CUDA_VISIBLE_DEVICES": "2,-1,3"}) == ["2"]  # CUDA stops at the first non-device
    for spec, fragment in (("0,0", "named twice"), ("0,x", "'x' is not a GPU id"), ("", "not a GPU id")):
        with pytest.raises(ValueError, match=fragment):
            parse_gpus(spec)
    with pytest.raises(UsageError, match="needs 3 GPUs, --gpus gives 2"):
        ReduceOptions(err_msg="x", gpus="0,1", jobs=3).validate()
    with pytest.raises(UsageError, match="--gpus is for the local backends"):
        ReduceOptions(err_msg="x", gpus="0", backend="ray").validate()
    with pytest.raises(ValueError, match=r"no GPU found \(CUDA_VISIBLE_DEVICES is empty\)"):
        parse_gpus("auto", {"CUDA_VISIBLE_DEVICES": ""})


@pytest.mark.slow
@pytest.mark.skipif(bool(visible_gpus()), reason="this machine has GPUs")
def test_cli_auto_without_a_gpu_is_a_one_line_error(tmp_path):
    source = tmp_path / "pinned.py"
    source.write_text(PINNED)
    env = {key: value for key, value in os.environ.items() if key != "CUDA_VISIBLE_DEVICES"}
    done = autodd(source, "--err-msg", "pinned failure", "--gpus", "auto", env=env)
    assert_one_line_error(done, 2, "--gpus auto: no GPU found")
    assert sorted(os.listdir(tmp_path)) == ["pinned.py"]


@pytest.mark.slow
def test_cli_pins_gpus(gpu_log, tmp_path):
    source = tmp_path / "pinned.py"
    source.write_text(PINNED)
    done = autodd(source, "--err-msg", "pinned failure", "--gpus", "5,6", "-o", tmp_path / "min.py", "-q",
                  env={**os.environ, "GPU_LOG": str(gpu_log)})
    assert done.returncode == 0, done.stderr
    assert {gpu for gpu, _ in runs_seen(gpu_log)} == {"5", "6"}
    done = autodd(source, "--err-msg", "pinned failure", "--gpus", "5,6", "-j", "3")
    assert_one_line_error(done, 2, "-j 3 needs 3 GPUs")


@pytest.mark.slow
def test_a_preload_that_initializes_cuda_is_left_out(tmp_path):
    """A framework that says it initialized CUDA at import (here a stand-in `torch` whose
    torch.cuda.is_initialized() is true) must not be in a fork server's memory when it forks."""
    folder = tmp_path / "program"
    (folder / "torch").mkdir(parents=True)
    (folder / "torch" / "__init__.py").write_text("from . import cuda\n")
    (folder / "torch" / "cuda.py").write_text("def is_initialized():\n    return True\n")
    path = folder / "uses_torch.py"
    path.write_text("import torch\nprint('ran', torch.cuda.is_initialized())\n")
    backend = create_backend("runner", python=sys.executable, cwd=str(folder), extra_sys_path=[str(folder)],
                             preload=["json", "torch"])
    assert isinstance(backend, ForkServerBackend)
    with backend:
        result = backend.run(str(path), 30)
        assert backend.fallback is None
        assert backend.preloaded == ["json"]
        assert "initializes CUDA" in backend.skipped["torch"]
    assert result.stdout == b"ran True\n"
    done = subprocess.run([sys.executable, str(path)], capture_output=True, cwd=folder, check=False)
    assert done.stdout == result.stdout


def test_runs_per_gpu_shares_each_gpu_among_that_many_runs():
    """`--runs-per-gpu 2` with two GPUs: four runs at once, spread over the GPUs first; a fifth
    waits for a slot. -j defaults to GPUs x N and may not exceed it."""
    from contextlib import ExitStack

    from autodd_lsp.execution.gpus import GpuPool

    pool = GpuPool(["0", "1"], per_gpu=2)
    with ExitStack() as held:
        leased = [held.enter_context(pool.lease()) for _ in range(4)]
        assert leased == ["0", "1", "0", "1"]
        with pool.lease(should_stop=lambda: True) as fifth:
            assert fifth is None  # every slot is taken
    with pool.lease() as again:
        assert again in ("0", "1")  # slots come back after their runs
    assert ReduceOptions(err_msg="x", gpus="0,1", runs_per_gpu=3).jobs == 6
    ReduceOptions(err_msg="x", gpus="0,1", runs_per_gpu=3, jobs=6).validate()
    with pytest.raises(UsageError, match="needs 7 GPUs, --gpus gives 2 x 3 runs each"):
        ReduceOptions(err_msg="x", gpus="0,1", runs_per_gpu=3, jobs=7).validate()
    with pytest.raises(UsageError, match="give --gpus too"):
        ReduceOptions(err_msg="x", runs_per_gpu=2).validate()
    with pytest.raises(UsageError, match="give 1 or more"):
        ReduceOptions(err_msg="x", gpus="0", runs_per_gpu=0).validate()


@pytest.mark.slow
def test_cli_lets_runs_share_a_gpu(gpu_log, tmp_path):
    source = tmp_path / "pinned.py"
    source.write_text(PINNED)
    done = autodd(source, "--err-msg", "pinned failure", "--gpus", "5", "--runs-per-gpu", "2", "-o",
                  tmp_path / "min.py", "-q", env={**os.environ, "GPU_LOG": str(gpu_log)})
    assert done.returncode == 0, done.stderr
    assert {gpu for gpu, _ in runs_seen(gpu_log)} == {"5"} and "a = 1" not in (tmp_path / "min.py").read_text()

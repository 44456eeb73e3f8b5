"""`--backend ray` on a real Ray cluster: several nodes on this machine, on the loopback
address only (RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 keeps drivers from rewriting 127.0.0.1),
a private RAY_TMPDIR, usage statistics off. Only the processes the cluster started are
ended (Cluster.shutdown / remove_node, by their handles), never `ray stop`."""

from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

# Read by Ray when it is imported: set first (harmless for the other test modules).
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
os.environ.pop("RAY_ADDRESS", None)
RAY_ROOT = tempfile.mkdtemp(prefix="autodd-ray-test-")  # private and short: Ray's sockets live under it
os.environ["RAY_TMPDIR"] = RAY_ROOT
atexit.register(shutil.rmtree, RAY_ROOT, True)  # also when the module is only collected, or its tests deselected

ray = pytest.importorskip("ray")

from ray._private.services import get_node_to_connect_for_driver  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

from autodd_lsp.engine import (  # noqa: E402
    Notice,
    ReduceOptions,
    Reduction,
    Summary,
)
from autodd_lsp.execution import ray_backend, stages  # noqa: E402
from autodd_lsp.execution.runner.warm_servers import SERVER_SCRIPT  # noqa: E402
from tests.support import autodd, process_table, start_reduction  # noqa: E402

pytestmark = [pytest.mark.ray, pytest.mark.slow]

HEAD: dict[str, Any] = {
    "num_cpus": 0, "node_ip_address": "127.0.0.1", "include_dashboard": False,
    "_system_config": {"health_check_period_ms": 500, "health_check_failure_threshold": 3},
}
WORKER: dict[str, Any] = {"num_cpus": 1, "node_ip_address": "127.0.0.1"}
DOOMED = "AUTODD_TEST_DOOMED_NODE"  # set only in the environment of the node a test kills

# A program that needs its folder: a sibling module and a data file found through __file__.
PROGRAM = textwrap.dedent(
    """\
    import os
    from helper import SCALE
    here = os.path.dirname(__file__)
    rows = open(os.path.join(here, "rows.txt")).read().split()
    # autodd: freeze-start
    marks = MARKS
    if marks:  # each run leaves a note; on the node a test kills, it kills its own Ray worker first
        doomed = os.environ.get("AUTODD_TEST_DOOMED_NODE", "")
        with open(os.path.join(marks, "run-%d" % os.getpid()), "w") as note:
            note.write(doomed + "@" + os.environ.get("AUTODD_TEST_NODE", ""))
        if doomed:
            with open("/proc/%d/stat" % os.getppid()) as stat:  # the fork server's parent: the worker
                worker = int(stat.read().rsplit(")", 1)[1].split()[1])
            os.kill(worker, 9)
            import time
            time.sleep(120)
        elif len(os.listdir(marks)) > SLOW_AFTER:
            import time
            time.sleep(60)
        elif os.environ.get("AUTODD_TEST_NODE"):  # on the lost-node test's cluster: a run long enough to lose
            import time
            time.sleep(0.1)
    # autodd: end-freeze
    total = 0
    for row in rows:
        total += int(row) * SCALE
    unused = [total, len(rows)]
    label = "rows"
    print(label, total)
    if total > 10:
        raise RuntimeError("total overflow: %d" % total)
    """
)


@pytest.fixture(scope="module")
def cluster():
    made = Cluster(initialize_head=True, head_node_args=HEAD)
    try:
        made.add_node(**WORKER)
        made.add_node(**WORKER)
        made.wait_for_nodes()
        yield made
    finally:
        if ray.is_initialized():
            ray.shutdown()
        made.shutdown()  # ends the processes it started, by their handles
        shutil.rmtree(RAY_ROOT, ignore_errors=True)


def make_program(folder: Path, marks: Path | None = None, slow_after: int = 10**6) -> Path:
    """The program in `folder`; with `marks`, its runs leave notes there (and those after the
    `slow_after`-th sleep a minute)."""
    folder.mkdir(parents=True)
    (folder / "helper.py").write_text("SCALE = 3\n")
    (folder / "rows.txt").write_text("1\n2\n3\n")
    source = folder / "load.py"
    source.write_text(PROGRAM.replace("MARKS", repr(marks and str(marks))).replace("SLOW_AFTER", str(slow_after)))
    return source


def run_reduction(source: Path, listener=None, **options) -> tuple[Reduction, Summary]:
    reduction = start_reduction(source, "total overflow", listener, **options)
    return reduction, reduction.run()


def backend_of(reduction: Reduction) -> ray_backend.RayBackend:
    assert reduction._session is not None, "the run has started"
    backend = reduction._session.tester.backend
    assert isinstance(backend, ray_backend.RayBackend)
    return backend


def cluster_processes() -> list[str]:
    """Our workers (Ray actors) and fork servers (with their candidates) still alive."""
    return [cmdline for _parent, cmdline in process_table().values()
            if "ray::_Worker" in cmdline or SERVER_SCRIPT in cmdline]


def wait_until_none_left(seconds: float = 15.0) -> list[str]:
    end = time.monotonic() + seconds
    while cluster_processes() and time.monotonic() < end:
        time.sleep(0.1)
    return cluster_processes()


@pytest.fixture
def no_strays(tmp_path, monkeypatch):
    """conftest's `no_leftovers`, minus the cluster's own processes: after the test the private
    temp folder is empty and none of our workers, fork servers or candidates runs any more."""
    private = tmp_path / "private-tmp"
    private.mkdir()
    monkeypatch.setenv("TMPDIR", str(private))
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    yield
    assert wait_until_none_left() == []
    assert [cmdline for _parent, cmdline in process_table().values() if str(private) in cmdline] == []
    assert list(private.iterdir()) == []


@pytest.fixture(scope="module")
def sequential(tmp_path_factory):
    """The result of -j 1 with the local runner: what every Ray run must give."""
    source = make_program(tmp_path_factory.mktemp("sequential") / "project")
    _reduction, summary = run_reduction(source, backend="runner", jobs=1)
    assert summary.verified
    return summary.text


def test_reduces_on_the_cluster_like_j1(cluster, sequential, tmp_path, no_strays):
    source = make_program(tmp_path / "project")
    reduction, summary = run_reduction(source, backend="ray", ray_address=cluster.address)
    # one per CPU of the cluster (the head has none); the options stay as given (validated once, never changed)
    assert reduction.options.jobs is None and reduction._session is not None and reduction._session.jobs == 2
    assert summary.verified and not summary.cancelled
    assert summary.text == sequential
    assert not backend_of(reduction)._shipped  # every node is this machine: run in place
    # ... so the runs get the reduction's own temporary folder and kernel cache (run_scratch.py)
    assert {"TMPDIR", "TILELANG_CACHE_DIR"} <= set(backend_of(reduction).extra_env)
    assert sorted(os.listdir(source.parent)) == ["helper.py", "load.py", "rows.txt"]
    assert wait_until_none_left() == []


def test_the_cluster_runs_the_engines_code_and_records_its_stages(cluster, sequential, tmp_path,
                                                                   tmp_path_factory, monkeypatch, no_strays):
    """With AUTODD_STAGES, each candidate's record holds the worker's stages between the actor
    call and its result (execution/stages.py); and the worker runs the engine's compiled code,
    so the frozen region is judged in the candidate's own run: never a second run."""
    records = tmp_path_factory.mktemp("records") / "stages.jsonl"  # not in the program's folder
    monkeypatch.setattr(stages, "ON", True)
    monkeypatch.setattr(stages, "PATH", str(records))
    source = make_program(tmp_path / "project")
    _reduction, summary = run_reduction(source, backend="ray", ray_address=cluster.address, jobs=2)
    assert summary.verified and summary.text == sequential
    ran = [json.loads(line) for line in records.read_text().splitlines()]
    ran = [record for record in ran if any(name == "run" for name, _ in record["marks"])]
    assert ran
    for record in ran:
        names = [name for name, _ in record["marks"]]
        assert names.count("run") == 1, names  # no second run for the frozen region
        if not record["cancelled"]:
            worker = ["taken", "submitted", "w.start", "w.slot", "w.ready", "w.forked", "w.ended", "w.return", "got"]
            assert [name for name in names if name in worker] == worker, names
            assert names.index("run") < names.index("taken") and names.index("got") < names.index("returned")
            assert record["worker"] > 0
    assert any(record["verdict"] is True for record in ran)


LAZY = textwrap.dedent(
    """\
    def report():  # imports many modules lazily, as a kernel compiler's back end does
        import configparser, csv, decimal, difflib, email.mime.text, fractions, http.client
        import ipaddress, logging.handlers, statistics, tarfile, urllib.request, uuid, xml.dom.minidom, zipfile
        return "ok"
    print(report())
    """
)


def test_imports_one_worker_learns_every_worker_preloads(cluster, tmp_path, no_strays):
    """The original's first run (`learn_imports`) goes to one worker; what its runner learns to
    preload, the others and any later worker preload too (else each of their candidates imports it)."""
    source = tmp_path / "lazy.py"
    source.write_text(LAZY)
    backend = ray_backend.RayBackend(sys.executable, str(tmp_path), jobs=2, address=cluster.address)
    try:
        result = backend.run(str(source), 60.0, learn_imports=True)
        assert result.returncode == 0 and result.stdout == b"ok\n"
        assert len(backend._learned) >= 20 and "decimal" in backend._learned
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            learned = [set(ray.get(actor.learned.remote())) for actor in backend._actors]
            if all(set(backend._learned) <= names for names in learned):
                break
            time.sleep(0.2)
        assert all(set(backend._learned) <= names for names in learned)
        assert backend.run(str(source), 60.0).stdout == b"ok\n"
    finally:
        backend.close()


def test_the_folder_travels_to_workers_that_do_not_share_it(cluster, sequential, tmp_path, monkeypatch,
                                                           no_strays):
    """As on a remote cluster: the folder goes as the job's working_dir; candidates run in
    the copy, and their output names the source's folder, so the oracle judges the same."""
    monkeypatch.setattr(ray_backend, "nodes_share_files", lambda: False)
    source = make_program(tmp_path / "project")
    reduction, summary = run_reduction(source, backend="ray", ray_address=cluster.address, jobs=2)
    assert backend_of(reduction)._shipped
    assert not {"TMPDIR", "TILELANG_CACHE_DIR"} & set(backend_of(reduction).extra_env)  # not this machine's paths
    assert summary.verified and summary.text == sequential
    assert sorted(os.listdir(source.parent)) == ["helper.py", "load.py", "rows.txt"]
    assert wait_until_none_left() == []


def test_a_node_killed_mid_run_costs_only_its_candidates(cluster, tmp_path, monkeypatch, no_strays):
    """A third node: the first candidate it runs kills its worker, and the test then kills the
    node; that candidate runs again elsewhere and the result is -j 1's."""
    marks = tmp_path / "marks"
    marks.mkdir()
    monkeypatch.setenv(DOOMED, "1")  # inherited by this node's raylet and workers only
    doomed = cluster.add_node(**WORKER)
    monkeypatch.delenv(DOOMED)
    cluster.wait_for_nodes()
    source = make_program(tmp_path / "project", marks)
    _reduction, sequential = run_reduction(make_program(tmp_path / "alone", marks), backend="runner", jobs=1)

    def kill_when_running_there() -> None:
        while not any(note.read_text().startswith("1@") for note in marks.glob("run-*")):
            time.sleep(0.05)
        cluster.remove_node(doomed, allow_graceful=False)

    killer = threading.Thread(target=kill_when_running_there, daemon=True)
    killer.start()
    notices: list[str] = []
    reduction, summary = run_reduction(
        source, lambda event: notices.append(event.message) if isinstance(event, Notice) else None,
        backend="ray", ray_address=cluster.address, jobs=3,
    )
    killer.join(timeout=60)
    assert not killer.is_alive()
    assert summary.verified and not summary.cancelled
    assert summary.text == sequential.text
    assert backend_of(reduction).reruns >= 1
    assert any("Ray worker(s) died" in notice for notice in notices), notices
    assert wait_until_none_left() == []


def test_cancel_stops_the_cluster_work(cluster, tmp_path, no_strays):
    marks = tmp_path / "marks"
    marks.mkdir()
    source = make_program(tmp_path / "project", marks, slow_after=6)  # from the 7th run on, a minute each
    reduction = Reduction(source.read_text(), str(source), ReduceOptions(
        err_msg="total overflow", cwd=str(source.parent), backend="ray", ray_address=cluster.address, jobs=2))
    outcome: dict[str, Summary] = {}
    worker = threading.Thread(target=lambda: outcome.setdefault("summary", reduction.run()), daemon=True)
    worker.start()
    while len(list(marks.glob("run-*"))) < 8:  # two candidates on the cluster in their minute
        assert worker.is_alive()
        time.sleep(0.05)
    reduction.cancel()
    worker.join(timeout=30)
    assert not worker.is_alive()
    assert outcome["summary"].cancelled
    assert wait_until_none_left() == []
    assert sorted(os.listdir(source.parent)) == ["helper.py", "load.py", "rows.txt"]


def test_cli_backend_ray(cluster, sequential, tmp_path):
    source = make_program(tmp_path / "project")
    output = tmp_path / "min.py"
    done = autodd(source, "--err-msg", "total overflow", "--backend", "ray", "--ray-address", cluster.address,
                  "-o", output, "-q", cwd=source.parent)
    assert done.returncode == 0, done.stderr
    assert output.read_text() == sequential
    assert "Traceback" not in done.stderr


def test_side_a_runs_here_while_candidates_run_on_the_cluster(cluster, tmp_path, no_strays):
    """--passes-with-env with --backend ray: B on the cluster's workers, A on this machine; the
    result still passes with the variable set and fails without."""
    source = make_program(tmp_path / "project")
    source.write_text(source.read_text().replace(
        "unused = [total, len(rows)]\n",
        "if os.environ.get(\"SAFE_TOTALS\") == \"1\":\n    total = min(total, 10)\nunused = [total, len(rows)]\n"))
    reduction, summary = run_reduction(source, backend="ray", ray_address=cluster.address,
                                       passes_with_env=("SAFE_TOTALS=1",))
    assert summary.verified and "with SAFE_TOTALS=1" in summary.rule, summary.describe()
    assert backend_of(reduction)._started
    alone = tmp_path / "project" / "alone.py"
    alone.write_text(summary.text)

    def run(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(alone)], cwd=alone.parent, capture_output=True, text=True,
                              timeout=60, env={**os.environ, **env}, check=False)

    assert run({"SAFE_TOTALS": "1"}).returncode == 0
    failed = run({"SAFE_TOTALS": ""})
    assert failed.returncode == 1 and "total overflow" in failed.stderr
    alone.unlink()
    assert wait_until_none_left() == []


def test_cli_without_ray_is_a_one_line_error(tmp_path):
    source = make_program(tmp_path / "project")
    code = ("import sys; sys.modules['ray'] = None; from autodd_lsp.cli.main import main; "
            f"sys.exit(main([{str(source)!r}, '--err-msg', 'total overflow', '--backend', 'ray']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.strip() == "autodd: error: --backend ray needs Ray: pip install 'autodd-lsp[ray]'"


def test_cli_unreachable_cluster_is_a_one_line_error(tmp_path):
    source = make_program(tmp_path / "project")
    done = autodd(source, "--err-msg", "total overflow", "--backend", "ray", "--ray-address", "127.0.0.1:1",
                  env={**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"})
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("autodd: error:")]
    assert len(errors) == 1 and "cannot reach the Ray cluster at 127.0.0.1:1" in errors[0], done.stderr


NODE_MARK = "AUTODD_TEST_NODE"  # which node of the lost-node test a process belongs to


def machine_gone(mark: str) -> None:
    """What is left of a node whose raylet was killed goes as with its machine: a worker can
    outlive its raylet by minutes (orphaned, with its fork server and candidate). `mark`: the
    NAME=VALUE every process of that node inherited."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if mark.encode() in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"):
                os.kill(int(entry), signal.SIGKILL)
        except OSError:
            pass


@pytest.mark.parametrize("doomed", [("a worker node",), ("a worker node", "the driver's node")],
                         ids=["worker-raylet", "worker-and-driver-raylets"])
def test_raylets_killed_mid_run_cost_only_their_candidates(doomed, tmp_path, no_strays):
    """The hard way, on a cluster of its own, with the reduction in a subprocess (the `autodd`
    command: Ray may end a driver whose node died, which must not be pytest): SIGKILL of a
    worker node's raylet mid-run, and in the second variant then of the raylet the command's
    driver is attached to (the cluster then counts that driver as dead and ends every worker it
    owns). The run notices, reruns what was lost (connecting again when its own node died) and
    gives -j 1's result, within a bound (generous: not a speed goal, a hang is the failure).
    The worker node killed is one a run already ran on (one still warming when killed costs no
    candidate), and runs there pause 0.1 s, so the run is still going when the cluster counts
    the node dead (its health check: 1.5 s) and the lost candidate is seen and counted."""
    made = Cluster(initialize_head=True, head_node_args=HEAD)
    command = None
    try:
        node_marks = {}
        for index in range(3):
            os.environ[NODE_MARK] = str(index)  # inherited by that node's raylet and everything it starts
            node_marks[made.add_node(**WORKER).node_id] = f"{NODE_MARK}={index}"
        os.environ.pop(NODE_MARK)
        made.wait_for_nodes()
        marks = tmp_path / "marks"
        marks.mkdir()
        source = make_program(tmp_path / "project", marks)
        _alone, sequential = run_reduction(make_program(tmp_path / "alone", marks), backend="runner", jobs=1)
        runs_before = len(list(marks.glob("run-*")))
        output = tmp_path / "load.min.py"
        command = subprocess.Popen(
            [sys.executable, "-m", "autodd_lsp", str(source), "--err-msg", "total overflow", "--backend", "ray",
             "--ray-address", made.address, "-j", "3", "-o", str(output)],
            cwd=source.parent, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
        )

        def ran_on() -> set[str]:
            """The marks of the nodes the command's runs ran on so far (each note ends with one)."""
            return {note.read_text().rpartition("@")[2] for note in marks.glob("run-*")} - {""}

        def kill_after(runs: int, node=None) -> None:
            """Kills `node` (or the first worker node a run ran on, other than the driver's: its
            worker is then in the command's rotation, so a candidate of its is lost) once the command
            ran `runs` programs and such a node exists."""
            while True:
                assert command.poll() is None, command.communicate()[0]
                if len(list(marks.glob("run-*"))) >= runs_before + runs:
                    node = node or next((candidate for candidate in made.worker_nodes if candidate is not driver_node
                                         and node_marks[candidate.node_id].rpartition("=")[2] in ran_on()), None)
                    if node is not None:
                        break
                time.sleep(0.05)
            node.kill_raylet()
            if node.node_id in node_marks:
                machine_gone(node_marks[node.node_id])

        # A driver on this machine attaches to the node Ray picks for this address (the head):
        # asked of the cluster as the command's ray.init asks it.
        drivers = get_node_to_connect_for_driver(made.gcs_address, "127.0.0.1")["node_id"]
        driver_node = next(node for node in [made.head_node, *made.worker_nodes] if node.node_id == drivers)
        kill_after(5)  # the command runs candidates on the cluster by now
        if "the driver's node" in doomed:
            kill_after(15, driver_node)
        try:
            out, _ = command.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the run made no progress after {' and '.join(doomed)} lost their raylets")
        assert command.returncode == 0, out
        assert "Traceback" not in out
        assert output.read_text() == sequential.text
        assert re.search(r"\d+ Ray worker\(s\) died; their candidates ran again on other workers", out), out
    finally:
        if command is not None and command.poll() is None:
            os.killpg(command.pid, signal.SIGKILL)
            command.wait()
        made.shutdown()
    assert wait_until_none_left() == []

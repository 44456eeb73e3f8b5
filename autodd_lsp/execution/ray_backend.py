"""`ray`: candidates run on a Ray cluster's workers; the engine stays where autodd runs.

Why Ray: it places work on many machines, restarts nothing by itself that we do
not ask for, and reports a dead worker or node as an error on the result we
wait for, which is all a reducer needs; we write no scheduler of our own.

Contract (backend.py's, plus):
  * one worker per slot, a Ray actor asking for `num_gpus=1` where the cluster has
    GPUs (Ray then sets its CUDA_VISIBLE_DEVICES to that one GPU), else `num_cpus=1`;
    it keeps a warm runner (ForkServerBackend, jobs=1: the program's imports
    preloaded, one fresh fork per candidate) and runs one candidate at a time;
  * the candidate runs as `python file.py` would, with the runner's fidelity rules.
    Where every node is this machine, it runs in place (the job slot beside the
    source, engine/candidate/slots.py). Otherwise the source's folder travels as the actor's
    runtime_env `working_dir` (and this package as `py_modules`); the candidate is
    written into that copy under its slot's name, and the copy's path is replaced by
    the source's folder in its output, so the oracle sees the failure it would see here;
  * a worker or node that dies costs only the candidate it was running: that one runs
    again on another worker, the dead one is replaced in the background, and the run
    goes on (`degraded()` says how often that happened);
  * when the node this process is attached to dies (its raylet killed: the cluster then
    counts this driver as dead and ends every worker it owns), the backend connects again,
    to a live node, and starts its workers afresh: the candidates under way run again;
  * cancel tells the worker to kill its candidate at once (the runner's own cancel);
    `close` kills every actor (ray.kill), whose fork server then kills its candidate
    (it watches its client's socket): nothing of ours keeps running on the cluster.

The connection (`ray.init`) is ray_connect.py's. `import ray` happens only in these
two modules, and they are imported only for `ray`.
"""

from __future__ import annotations

import contextlib
import os
import queue
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from types import CodeType

import ray
from ray.exceptions import GetTimeoutError, RayActorError, RayError

from autodd_lsp.execution.backend import Backend, CancelEvent, RunResult
from autodd_lsp.execution.capture import cancelled_result
from autodd_lsp.execution.ray_connect import (  # noqa: F401 - cluster_slots: the engine's entry
    cluster_slots,
    connect,
    driver_alive,
    nodes_share_files,
    reconnect,
)
from autodd_lsp.files import process_alive, sweep_stale_tempdirs

TICK = 0.05  # how often a waiting run looks at its cancel flag
CLOSE_GRACE = 1.0  # how long close() lets workers stop their candidates and remove their files
CLOSE_WAIT = 10.0  # how long close() waits for the workers' processes here to end before sweeping
CANCEL_GRACE = 5.0  # a worker that does not hand back a cancelled run by then is killed and replaced
RUN_ATTEMPTS = 8  # workers that may die under one candidate before the run gives up (as "cancelled")
class _Worker:
    """One slot on the cluster: a warm runner that runs one candidate at a time.

    Threaded (max_concurrency=2) so that `cancel` reaches it while `run` waits.
    """

    def __init__(self, python, cwd, folder, preload, output_limit, extra_env, shipped, launch):
        from autodd_lsp.execution.runner.client import ForkServerBackend

        self.folder = folder
        self.root = os.getcwd() if shipped else None  # the folder's copy (runtime_env working_dir)
        if self.root is not None:
            python = python if os.access(python, os.X_OK) else sys.executable
            cwd = self._map(cwd) if self._inside(cwd) else self.root
            launch = replace(launch, stdin=self._map(launch.stdin))  # an input file in the folder: its copy
        self.written: set[str] = set()
        self.cancels: dict[int, CancelEvent] = {}
        self.cancelled: set[int] = set()
        self.lock = threading.Lock()
        sweep_stale_tempdirs()  # what workers killed on this node before left in its temporary folder
        self.backend = ForkServerBackend(
            python, cwd, jobs=1, extra_sys_path=[self._map(folder)], preload=preload,
            output_limit=output_limit, extra_env=extra_env, launch=launch,
        )
        self.backend.start()

    def _inside(self, path):
        return path == self.folder or path.startswith(self.folder.rstrip(os.sep) + os.sep)

    def _map(self, path):
        if self.root is None or not self._inside(path):
            return path
        return self.root + path[len(self.folder.rstrip(os.sep)):]

    def ready(self):
        return self.backend.degraded(), os.getpid()

    def cancel(self, run_id):
        with self.lock:
            event = self.cancels.get(run_id)
            if event is None:
                self.cancelled.add(run_id)
        if event is not None:
            event.set()

    def run(self, run_id, path, text, timeout, learn_imports):
        event = CancelEvent()
        with self.lock:
            if run_id in self.cancelled:
                self.cancelled.discard(run_id)
                return cancelled_result()
            self.cancels[run_id] = event
        try:
            if self.root is not None:
                path = self._map(path)
                with open(path, "wb") as handle:
                    handle.write(text)
                self.written.add(path)
            result = self.backend.run(path, timeout, event, learn_imports=learn_imports)
        finally:
            with self.lock:
                self.cancels.pop(run_id, None)
        if self.root is None:
            return result
        root, folder = os.fsencode(self.root.rstrip(os.sep)), os.fsencode(self.folder.rstrip(os.sep))
        return replace(result, stdout=result.stdout.replace(root, folder), stderr=result.stderr.replace(root, folder))

    def shutdown(self):
        self.backend.close()
        for path in self.written:
            try:
                os.remove(path)
            except OSError:
                pass


# ray's overloads of `remote` list the task options only; max_concurrency is an actor option it accepts.
_RemoteWorker = ray.remote(max_concurrency=2)(_Worker)  # type: ignore[call-overload]


class RayBackend(Backend):
    def __init__(self, *args, address: str = "", **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.address = address
        self.reruns = 0  # candidates run again because their worker died
        self._closed = False
        self._lock = threading.Lock()
        self._idle: queue.SimpleQueue = queue.SimpleQueue()
        self._warming: dict = {}  # ready() ref -> actor still starting
        self._actors: list = []  # every actor made, to kill at close
        self._started = False
        self._next_id = 0
        self._worker_degraded = ""
        self.reconnects = 0  # times this driver's own node died and it connected again
        self._generation = 0  # bumped by each reconnect: refs and actors of an older one are void
        self._gate = threading.Condition()
        self._users = 0  # threads inside a Ray call (a reconnect waits until none is)
        self._reconnecting = False
        self._pids: list[int] = []  # the workers' process ids (on this machine where files are shared)

    # ------------------------------------------------------------ workers

    def start(self) -> None:
        with self._lock:
            if self._started or self._closed:
                return
            self._started = True
        connect(self.address)
        self._shipped = not nodes_share_files()
        if self._shipped:
            connect(self.address, ship=self._folder())
        resources = ray.cluster_resources()
        self._demand = {"num_gpus": 1, "num_cpus": 0} if resources.get("GPU", 0) >= 1 else {"num_cpus": 1}
        for _ in range(self.jobs):
            self._spawn()

    def _spawn(self) -> None:
        """Start one worker; it joins the idle ones once warm (see `_take`)."""
        with self._lock:
            if self._closed:
                return
            actor = _RemoteWorker.options(**self._demand).remote(
                self.python, self.cwd, self._folder(), self.preload, self.output_limit, self.extra_env, self._shipped,
                self.launch,
            )
            self._actors.append(actor)
            self._warming[actor.ready.remote()] = actor

    def _folder(self) -> str:
        """The source's folder: what candidates need beside them (extra_sys_path, as the engine gives it)."""
        return self.extra_sys_path[0] if self.extra_sys_path else self.cwd

    def _kill(self, actor) -> None:
        try:
            ray.kill(actor, no_restart=True)
        except Exception:  # noqa: BLE001 - already gone (Ray's errors have no common base)
            pass

    def _replace(self, actor) -> None:
        with self._lock:
            current = actor in self._actors
        self.reruns += 1
        if not current:  # a worker of a connection given up: its replacements are already started
            return
        self._kill(actor)
        self._spawn()

    def _lost(self, actor, generation: int) -> None:
        """`actor` died under a candidate: replace it, or connect again if this driver's node died."""
        with self._using():
            alive = self._generation != generation or driver_alive()
        if alive:
            self._replace(actor)
        else:
            self.reruns += 1
            self._reconnect(generation)

    @contextlib.contextmanager
    def _using(self):
        """Around one Ray call: waits while a reconnect is under way, which waits for it."""
        with self._gate:
            self._gate.wait_for(lambda: not self._reconnecting)
            self._users += 1
        try:
            yield
        finally:
            with self._gate:
                self._users -= 1
                self._gate.notify_all()

    def _reconnect(self, generation: int) -> None:
        """Connect again and start every worker afresh (once per dead connection, any thread)."""
        with self._gate:
            if self._generation != generation or self._reconnecting or self._closed:
                return
            self._reconnecting = True
            self._gate.wait_for(lambda: self._users == 0)
        try:
            with self._lock:
                self._actors = []
                self._warming.clear()
                self._idle = queue.SimpleQueue()
            try:
                reconnect()
            except Exception:  # noqa: BLE001 - the cluster is gone: runs end as cancelled (RUN_ATTEMPTS)
                pass
            self.reconnects += 1
            self._generation += 1
        finally:
            with self._gate:
                self._reconnecting = False
                self._gate.notify_all()
        if ray.is_initialized():
            for _ in range(self.jobs):
                self._spawn()

    def _take(self, should_stop):
        """(an idle, warm worker, its generation); None if stopped first. Promotes workers that
        finished warming."""
        while True:
            generation = self._generation
            try:
                return self._idle.get_nowait(), generation
            except queue.Empty:
                pass
            if should_stop():
                return None
            with self._lock:
                refs = list(self._warming)
            if not refs:
                time.sleep(TICK)
                continue
            with self._using():
                if generation != self._generation:
                    continue
                done, _ = ray.wait(refs, num_returns=1, timeout=TICK)
            for ref in done:
                with self._lock:
                    actor = self._warming.pop(ref, None)
                if actor is None:
                    continue
                try:
                    with self._using():
                        reason, pid = ray.get(ref) if generation == self._generation else ("", 0)
                except RayError:  # it died warming up (its node went away): another one
                    self._lost(actor, generation)
                    continue
                if generation != self._generation:
                    continue
                self._pids.append(pid)
                if reason and not self._worker_degraded:
                    self._worker_degraded = reason
                self._idle.put(actor)

    def degraded(self) -> str:
        parts = []
        if self._worker_degraded:
            parts.append(f"on the Ray workers, {self._worker_degraded}")
        if self.reruns:
            parts.append(f"{self.reruns} Ray worker(s) died; their candidates ran again on other workers")
        return "; ".join(parts)

    # ------------------------------------------------------------ running

    def run(
        self,
        path: str,
        timeout: float,
        cancel=None,
        code: Sequence[CodeType] | None = None,
        learn_imports: bool = False,
    ) -> RunResult:
        def should_stop() -> bool:
            return self._closed or (cancel is not None and cancel.is_set())

        if should_stop():
            return cancelled_result()
        self.start()
        path = os.path.abspath(path)
        with open(path, "rb") as handle:
            text = handle.read()
        for _attempt in range(RUN_ATTEMPTS):
            taken = self._take(should_stop)
            if taken is None:
                return cancelled_result()
            actor, generation = taken
            with self._lock:
                self._next_id += 1
                run_id = self._next_id
            try:
                with self._using():
                    if generation != self._generation:
                        continue  # the connection it belonged to was given up
                    ref = actor.run.remote(run_id, path, text, timeout, learn_imports)
                result = self._wait(actor, run_id, ref, should_stop, generation)
            except RayActorError:  # the worker or its node died under the candidate: elsewhere
                self._lost(actor, generation)
                continue
            if result is None:  # stopped, and the worker did not hand it back: replaced
                return cancelled_result()
            if generation == self._generation:
                self._idle.put(actor)
            return result
        return cancelled_result()

    def _wait(self, actor, run_id, ref, should_stop, generation: int) -> RunResult | None:
        """The run's result; RayActorError if its worker died (or its connection was given up)."""
        while True:
            with self._using():
                if generation != self._generation:
                    raise RayActorError()
                done, _ = ray.wait([ref], timeout=TICK)
                if done:
                    return ray.get(ref)
            if should_stop():
                break
        if self._closed:
            return None
        actor.cancel.remote(run_id)
        try:
            return ray.get(ref, timeout=CANCEL_GRACE)
        except GetTimeoutError:
            self._replace(actor)
            self.reruns -= 1  # not a death: a wedged worker
            return None

    # ------------------------------------------------------------ closing

    def close(self) -> None:
        """Kill every worker (its fork server then kills its candidate). Idempotent, any thread."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            actors, self._actors = self._actors, []
            self._warming.clear()
        stopping = []
        for actor in actors:
            try:
                stopping.append(actor.shutdown.remote())
            except Exception:  # noqa: BLE001 - a dead actor: nothing to stop
                pass
        if stopping:
            ray.wait(stopping, num_returns=len(stopping), timeout=CLOSE_GRACE)
        for actor in actors:
            self._kill(actor)
        # A worker killed with its node left its fork server's scratch folder behind; on a cluster
        # on this machine that folder is in our temporary folder: once those processes are gone
        # (a worker whose raylet was killed ends by itself, a little later), remove what they left.
        if not getattr(self, "_shipped", True):
            end = time.monotonic() + CLOSE_WAIT
            while any(process_alive(pid) for pid in self._pids) and time.monotonic() < end:
                time.sleep(TICK)
        sweep_stale_tempdirs()


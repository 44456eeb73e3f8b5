"""`ray`: candidates run on a Ray cluster's workers; the engine stays where autodd runs.

Why Ray: it places work on many machines, restarts nothing by itself that we do
not ask for, and reports a dead worker or node as an error on the result we
wait for, which is all a reducer needs; we write no scheduler of our own.

Contract (backend.py's, plus):
  * one worker per slot, a Ray actor asking for `num_gpus=1` where the cluster has
    GPUs (Ray then sets its CUDA_VISIBLE_DEVICES to that one GPU), else `num_cpus=1`;
    it keeps a warm runner (ForkServerBackend, jobs=1: the program's imports
    preloaded, one fresh fork per candidate) and runs one candidate at a time
    (ray_worker.py); what one worker's runner learns to preload from a `learn_imports`
    run, every worker preloads (the others would import it in every candidate);
  * the candidate runs as `python file.py` would, with the runner's fidelity rules.
    Where every node is this machine, it runs in place (the job slot beside the
    source, engine/candidate/slots.py): only its compiled code travels (marshalled,
    run instead of the file as the runner runs it: a code-probed candidate's frozen
    regions are judged in its own run, not in a second one), never its text.
    Otherwise the source's folder travels as the actor's
    runtime_env `working_dir` (and this package as `py_modules`); the candidate is
    written into that copy under its slot's name, and the copy's path is replaced by
    the source's folder in its output, so the oracle sees the failure it would see here
    (there the worker compiles the file: the code names this machine's paths);
  * a worker or node that dies costs only the candidate it was running: that one runs
    again on another worker, the dead one is replaced in the background, and the run
    goes on (`degraded()` says how often that happened);
  * when the node this process is attached to dies (its raylet killed: the cluster then
    counts this driver as dead and ends every worker it owns), the backend connects again,
    to a live node, and starts its workers afresh: the candidates under way run again;
  * cancel tells the worker to kill its candidate at once (the runner's own cancel):
    a `CancelEvent` the moment it is set, another flag at the next look (`TICK`);
    `close` kills every actor (ray.kill), whose fork server then kills its candidate
    (it watches its client's socket): nothing of ours keeps running on the cluster.

The connection (`ray.init`) is ray_connect.py's. `import ray` happens only in these
two modules (the worker's own side imports none), and they are imported only for `ray`.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import queue
import threading
import time
from collections.abc import Sequence
from types import CodeType

import ray
from ray.exceptions import GetTimeoutError, RayActorError, RayError

import autodd_lsp.execution.stages as stages
from autodd_lsp.execution.backend import Backend, RunResult
from autodd_lsp.execution.capture import cancelled_result
from autodd_lsp.execution.ray_connect import (  # noqa: F401 - cluster_slots: the engine's entry
    cluster_slots,
    connect,
    driver_alive,
    nodes_share_files,
    reconnect,
)
from autodd_lsp.execution.ray_worker import CODE_HEADER, _Worker
from autodd_lsp.files import process_alive, sweep_stale_tempdirs

TICK = 0.05  # how often a waiting run looks at its cancel flag
CLOSE_GRACE = 1.0  # how long close() lets workers stop their candidates and remove their files
CLOSE_WAIT = 10.0  # how long close() waits for the workers' processes here to end before sweeping
CANCEL_GRACE = 5.0  # a worker that does not hand back a cancelled run by then is killed and replaced
RUN_ATTEMPTS = 8  # workers that may die under one candidate before the run gives up (as "cancelled")
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
        self._spawned: dict = {}  # ready() ref -> when its worker was asked for (AUTODD_STAGES only)
        self._learned: list[str] = []  # imports a worker learned (`learn_imports`): every worker preloads them

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
                self.python, self.cwd, self._folder(), self.preload + self._learned, self.output_limit,
                self.extra_env, self._shipped, self.launch,
            )
            self._actors.append(actor)
            ref = actor.ready.remote()
            self._warming[ref] = actor
            if stages.ON:
                self._spawned[ref] = time.time()

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
                if ref in self._spawned:
                    stages.interval("ray: a worker started and warm", self._spawned.pop(ref))
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
        text = b""  # where the nodes share this machine's files, the worker runs the file in place
        if self._shipped:
            with open(path, "rb") as handle:
                text = handle.read()
        shipped_code = self._shipped_code(code)
        timing = (True,) if stages.marks(cancel) else ()  # AUTODD_STAGES: the worker marks its stages too
        for _attempt in range(RUN_ATTEMPTS):
            taken = self._take(should_stop)
            if taken is None:
                return cancelled_result()
            actor, generation = taken
            stages.mark(cancel, "taken")
            with self._lock:
                self._next_id += 1
                run_id = self._next_id
            try:
                with self._using():
                    if generation != self._generation:
                        continue  # the connection it belonged to was given up
                    ref = actor.run.remote(run_id, path, text, timeout, learn_imports, shipped_code, *timing)
                stages.mark(cancel, "submitted")
                forget = self._on_cancel(cancel, actor, run_id, generation)
                try:
                    result = self._wait(actor, run_id, ref, should_stop, generation)
                finally:
                    forget()
            except RayActorError:  # the worker or its node died under the candidate: elsewhere
                self._lost(actor, generation)
                continue
            if result is None:  # stopped, and the worker did not hand it back: replaced
                return cancelled_result()
            if timing:
                result = self._timed(cancel, result)
            if learn_imports and generation == self._generation:
                self._share_learned(actor)
            if generation == self._generation:
                self._idle.put(actor)
            return result
        return cancelled_result()

    def _shipped_code(self, code: Sequence[CodeType] | None) -> bytes:
        """`code` marshalled for the worker to run instead of the file (as the runner's child does, so
        that a code-probed candidate's frozen regions are seen in its own run, not in a second one);
        b"" where the folder travels (the code names this machine's paths) or a module is run."""
        if code is None or self._shipped or self.launch.module:
            return b""
        try:
            return CODE_HEADER + marshal.dumps(tuple(code))
        except ValueError:
            return b""

    def _on_cancel(self, cancel, actor, run_id: int, generation: int):
        """Tell the worker at once when `cancel` is set (a `CancelEvent` can say so), not at the next
        look at it (`TICK`); returns a function that forgets it."""
        on_set = getattr(cancel, "on_set", None)
        if on_set is None:
            return lambda: None

        def tell() -> None:
            if generation != self._generation or self._reconnecting or self._closed:
                return  # _wait sees the flag at its next look, and handles those
            try:
                actor.cancel.remote(run_id)
            except Exception:  # noqa: BLE001 - a dead worker or connection: _wait's next look handles it
                pass

        return on_set(tell)

    def _share_learned(self, actor) -> None:
        """What `actor` learned to preload from a `learn_imports` run: every other worker, and every
        worker started later, preloads it too (each runner would otherwise import it per candidate)."""
        try:
            with self._using():
                names = ray.get(actor.learned.remote(), timeout=CANCEL_GRACE)
        except Exception:  # noqa: BLE001 - a dead worker: its candidates' imports stay unlearned
            return
        new = [name for name in names if name not in self._learned]
        if not new:
            return
        with self._lock:
            self._learned += new
            others = [other for other in self._actors if other is not actor]
        for other in others:
            try:
                other.adopt.remote(new)
            except Exception:  # noqa: BLE001 - a dead worker: replaced with the learned preload
                pass

    @staticmethod
    def _timed(cancel, answer) -> RunResult:
        """A timed run's RunResult, its worker's marks added to `cancel`'s record."""
        result, marks, pid = answer
        stages.extend(cancel, marks, "w.")
        stages.mark(cancel, "got")
        stages.note(cancel, worker=pid)
        return result

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


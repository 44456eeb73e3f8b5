"""The connection to a Ray cluster, made once per process and kept (execution/ray_backend.py's).

`address` or RAY_ADDRESS, else Ray starts a local instance for this process (ended with
it); an address where nothing listens is refused at once (ray.init would wait minutes).
`reconnect` starts over as a new driver, for when the node this process is attached to
died (the cluster then counts this driver as dead). Imported only for `--backend ray`.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time

import ray

CONNECT_TIMEOUT = 5.0  # seconds to reach a cluster's address before saying it cannot be reached
SETTLE_TIMEOUT = 15.0  # at most this long a reconnect waits for the cluster to count a dead node dead
_LOCAL_ADDRESSES = {"127.0.0.1", "localhost", "::1"}

_connect_lock = threading.Lock()
_connected: tuple[str, str | None] | None = None  # (address given, folder shipped) of ray.init
PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # autodd_lsp, shipped with a folder
# Ray >= 2.45 hides every GPU (CUDA_VISIBLE_DEVICES="") from a worker that asks for none; a
# CPU worker's candidates should see the machine as `python file.py` would.
WORKER_ENV = {"RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO": "0"}


def connect(address: str = "", ship: str | None = None) -> None:
    """Connect this process to the cluster at `address`, once (again for another address or folder).

    `ship`: a folder that travels to every worker as the job's working_dir (its copy is
    then each worker's cwd), this package with it; Ray uploads local folders only for a
    whole job, hence one connection per shipped folder. None: keep any connection to `address`.
    """
    global _connected
    with _connect_lock:
        if ray.is_initialized() and _connected is not None and _connected[0] == address:
            if ship is None or _connected[1] == ship:
                return
        if ray.is_initialized():
            ray.shutdown()
        for name, value in WORKER_ENV.items():  # a local instance's workers, and Ray's notice here
            os.environ.setdefault(name, value)
        runtime_env: dict = {"env_vars": dict(WORKER_ENV)}
        if ship is not None:
            runtime_env.update(working_dir=ship, py_modules=[PACKAGE], excludes=[".autodd-*"])
        target = address or os.environ.get("RAY_ADDRESS", "")
        _reachable(target)
        local = not target
        ray.init(
            address=address or None,
            runtime_env=runtime_env,
            log_to_driver=False,  # candidates' output is captured, never echoed by Ray
            logging_level=logging.WARNING,
            **({"include_dashboard": False} if local else {}),
        )
        _connected = (address, ship)


def reconnect() -> None:
    """Connect again as before (ray.shutdown, then ray.init): to a live node, as a new driver.

    ray.init attaches to a node the cluster counts as alive; one whose raylet died a moment
    ago still counts for a second or two, and attaching to it ends this process (Ray's core
    worker exits when it cannot reach its raylet). So first wait, a bounded while, until no
    node counted alive has a raylet that refuses connections."""
    global _connected
    _wait_for_dead_nodes_to_be_counted()
    with _connect_lock:
        previous, _connected = _connected, None
    address, ship = previous if previous is not None else ("", None)
    connect(address, ship)


def _wait_for_dead_nodes_to_be_counted(most: float = SETTLE_TIMEOUT) -> None:
    end = time.monotonic() + most
    while time.monotonic() < end:
        try:
            alive = [node for node in ray.nodes() if node.get("Alive")]
        except Exception:  # noqa: BLE001 - the cluster cannot say: connect and let Ray decide
            return
        if all(_listens(node["NodeManagerAddress"], node["NodeManagerPort"]) for node in alive):
            return
        time.sleep(0.2)


def _listens(host: str, port: int) -> bool:
    return _refusal(host, int(port), timeout=1.0) is None


def _refusal(host: str, port: int, timeout: float) -> OSError | None:
    """Why nothing answers at `host:port` within `timeout`; None if something does."""
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as error:
        return error
    return None


def driver_alive() -> bool:
    """Whether the node this process is attached to is alive (the cluster ends the workers of
    a driver whose node died); False when the cluster cannot say."""
    try:
        here = ray.get_runtime_context().get_node_id()
        return any(node["NodeID"] == here and node.get("Alive") for node in ray.nodes())
    except Exception:  # noqa: BLE001 - Ray's errors have no common base
        return False


def _reachable(address: str) -> None:
    """ConnectionError unless something listens at a `host:port` address (ray.init would wait for
    it for minutes); other forms ("auto", "ray://...", "") are left to Ray."""
    host, _, port = address.rpartition(":")
    if not host or "://" in address or not port.isdigit():
        return
    error = _refusal(host.strip("[]"), int(port), timeout=CONNECT_TIMEOUT)
    if error is not None:
        raise ConnectionError(f"nothing answers at {address} ({error.strerror or error})")


def cluster_slots(address: str = "") -> int:
    """How many candidates the cluster runs at once: its GPUs, else its CPUs (at least 1)."""
    connect(address)
    resources = ray.cluster_resources()
    return max(1, int(resources.get("GPU", 0)) or int(resources.get("CPU", 0)))


def nodes_share_files() -> bool:
    """Whether every live node is this machine (then they see the source's folder as it is here)."""
    here = set(_LOCAL_ADDRESSES)
    try:
        here.add(socket.gethostbyname(socket.gethostname()))
    except OSError:
        pass
    here.add(ray.util.get_node_ip_address())
    return all(node["NodeManagerAddress"] in here for node in ray.nodes() if node.get("Alive"))

"""The server's life: command line, shutdown/exit or a lost client during a run leave no process."""

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import SLOW_SENTINEL, slow_program
from tests.support import server_harness as h

pytestmark = pytest.mark.slow  # starts servers


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


def test_help_and_version():
    version = subprocess.run([sys.executable, "-m", "autodd_lsp.server", "--version"], capture_output=True, text=True, check=False)
    assert version.returncode == 0 and "autodd-lsp" in version.stdout
    helped = subprocess.run([sys.executable, "-m", "autodd_lsp.server", "--help"], capture_output=True, text=True, check=False)
    assert helped.returncode == 0 and "--tcp" in helped.stdout
    bad = subprocess.run([sys.executable, "-m", "autodd_lsp.server", "--tcp", "nowhere"], capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "HOST:PORT" in bad.stderr


async def start_slow_run(tmp_path: Path):
    """A server, a client, and a long run under way; returns (client, run, candidate processes)."""
    client = h.make_client()
    await client.start_io(*h.SERVER_COMMAND)
    await h.initialize(client, tmp_path)
    uri = h.open_document(client, h.write(tmp_path, "slow.py", slow_program()))
    run = asyncio.ensure_future(h.minimize(client, {"uri": uri, "errMsg": SLOW_SENTINEL}))
    await h.wait_until(lambda: any(len(v) > 2 for v in client.progress_reports.values()), timeout=20)
    await h.wait_until(lambda: h.descendants(h.server_pid(client)), timeout=10)
    return client, run, h.descendants(h.server_pid(client))


async def test_shutdown_cancels_the_run_and_exit_leaves_no_process(tmp_path):
    client, run, workers = await start_slow_run(tmp_path)

    await asyncio.wait_for(client.shutdown_session(), 15)

    assert (await asyncio.wait_for(run, 5)).status == "cancelled"
    assert client._server.returncode == 0
    await h.wait_until(lambda: not any(alive(pid) for pid in workers), timeout=5)
    await client.stop()


async def test_losing_the_client_stops_the_run(tmp_path):
    client, run, workers = await start_slow_run(tmp_path)
    server = client._server

    server.stdin.close()

    await asyncio.wait_for(server.wait(), 15)
    await h.wait_until(lambda: not any(alive(pid) for pid in workers), timeout=5)
    run.cancel()
    await client.stop()


async def test_sigterm_stops_the_run(tmp_path):
    client, run, workers = await start_slow_run(tmp_path)
    server = client._server

    os.kill(server.pid, signal.SIGTERM)

    await asyncio.wait_for(server.wait(), 15)
    await h.wait_until(lambda: not any(alive(pid) for pid in workers), timeout=5)
    run.cancel()
    await client.stop()


def test_tcp_session(tmp_path):
    import json
    import socket
    import time

    with socket.socket() as probe_socket:
        probe_socket.bind(("127.0.0.1", 0))
        port = probe_socket.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "autodd_lsp.server", "--tcp", f"127.0.0.1:{port}"],
                              stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                connection = socket.create_connection(("127.0.0.1", port))
                break
            except ConnectionRefusedError:
                assert time.monotonic() < deadline, "the server did not listen"
                time.sleep(0.1)
        reader = connection.makefile("rb")

        def send(message):
            body = json.dumps({"jsonrpc": "2.0", **message}).encode()
            connection.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)

        def receive():
            length = 0
            while (line := reader.readline().strip()):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            return json.loads(reader.read(length))

        send({"id": 1, "method": "initialize", "params": {"capabilities": {}, "processId": None, "rootUri": None}})
        assert "codeActionProvider" in receive()["result"]["capabilities"]
        send({"id": 2, "method": "shutdown"})
        assert receive()["id"] == 2
        send({"method": "exit"})
        assert server.wait(timeout=10) == 0
        assert server.stderr is not None and server.stderr.read() == ""
        connection.close()
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()

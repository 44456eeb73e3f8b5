"""The fork server's entry: runs under the candidates' interpreter, imports the heavy
modules once, then serves one fresh fork per candidate (serve_loop.py, child.py).

Started by ForkServerBackend as `python /path/to/autodd_lsp/execution/runner/server_main.py FD`
(FD being the server's end of a Unix socket pair), by the interpreter that runs the
candidates, with the candidates' environment (PYTHONPATH: the program's
`extra_sys_path`, then the user's own; nothing adds the folder autodd_lsp lives in).
That interpreter may not have autodd_lsp importable, or may import another version
of it. So the server's files are standalone:

  * this entry imports nothing of ours by name. It loads its siblings by file
    location, from this file's own folder, as a private package `_autodd_forkserver`
    (`load_server_files`): `wire.py` (the channel the client imports too),
    `serve_loop.py` (the serve loop), `child.py` (the child's set-up). They
    reach each other by relative imports, which resolve to the same files whether the
    client imports them (`autodd_lsp.execution.runner.wire`) or the server does. Whatever
    autodd_lsp the interpreter may hold is never read; `import wire` by a candidate
    never finds ours (this folder leaves sys.path before any candidate runs);
  * those files use the standard library only (what the server imports, every
    candidate has in `sys.modules`) and Python 3.9 syntax (the oldest interpreter a
    program may use).

tests/test_execution.py runs the entry the way the client does, from a copy of the
four files in a folder of their own, under an interpreter that cannot import autodd_lsp.

Protocol (messages are dicts, framed as `wire.Channel` says):
  client -> server  {"preload": [names]}                               once
  server -> client  {"importing": i}                                    before each preload import
  server -> client  {"ready": true, "preloaded": [...], "failed": {name: why},
                     "tainted": None | {"index": i, "reason": why}}     then exits if tainted
  client -> server  {"path": p, "cwd": d, "folder": f, "code": c, "imports": i, "gpu": g, "module": m, "args": a}
                    + fds [stdout_w, stderr_w]  per candidate (f: realpath(p)'s folder; c: "" or a
                                            file of code_header() + marshal of a tuple of
                                            code objects to run in order: p's code; i: "" or a
                                            file where the candidate lists, at its end, the
                                            modules it imported beyond the server's; g: "" or
                                            the one GPU the candidate may see, set as its
                                            CUDA_VISIBLE_DEVICES before its code runs; m: ""
                                            to run p as `python p`, or a module to run as
                                            `python -m m *a`, which is given p's path in a)
  server -> client  {"pid": pid} once a child has it, {"status": s, "duration": d} at its end

Each request goes to a "spare" child forked (and set up) while the client was busy
with something else; its private socket brings the request in and, at the end, its
exit status out, ahead of the kernel's slow teardown of the process (serve_loop.Candidate).
This file: start-up (preload and the checks that keep forking faithful and safe,
the warm-up that makes forks cheap), then the serve loop.
"""

# What Python put in this script's globals is what it puts in any script's: a
# candidate's fresh __main__ gets the same names (whatever the Python version).
SCRIPT_GLOBALS = [name for name in globals() if name.startswith("__")]

import _thread  # noqa: E402 - SCRIPT_GLOBALS must be read before any import adds names
import gc  # noqa: E402 - SCRIPT_GLOBALS must be read before any import adds names
import importlib  # noqa: E402 - SCRIPT_GLOBALS must be read before any import adds names
import marshal  # noqa: E402 - SCRIPT_GLOBALS must be read before any import adds names
import os  # noqa: E402 - SCRIPT_GLOBALS must be read before any import adds names
import socket  # noqa: E402 - SCRIPT_GLOBALS must be read before any import adds names
import sys  # noqa: E402 - SCRIPT_GLOBALS must be read before any import adds names
import types  # noqa: E402 - SCRIPT_GLOBALS must be read before any import adds names

PACKAGE = "_autodd_forkserver"  # the private name the server's own files are loaded under
GPU_DEVICES = ("/dev/nvidia", "/dev/kfd", "/dev/dri")
MADV_COLLAPSE = 25  # Linux >= 6.1
HUGE_PAGE = 2 << 20


def load_server_files():
    """This folder's server files as the package `_autodd_forkserver`; its serve_loop and wire.

    By location, not by name: the interpreter's own autodd_lsp (if any) is never used.
    """
    package = types.ModuleType(PACKAGE)
    package.__path__ = [os.path.dirname(os.path.abspath(__file__))]
    sys.modules[PACKAGE] = package
    return importlib.import_module(PACKAGE + ".serve_loop"), importlib.import_module(PACKAGE + ".wire")


def main():
    serve_loop, wire = load_server_files()
    inheritance = serve_loop.child.Inheritance(
        SCRIPT_GLOBALS,
        type(globals().get("__loader__")),
        bool(getattr(sys.flags, "safe_path", False)),  # -P / PYTHONSAFEPATH: no script folder on sys.path
    )
    inheritance.code_header = wire.code_header()
    inheritance.libc = load_libc()
    channel = wire.Channel(socket.socket(fileno=int(sys.argv[1])))
    if not inheritance.safe_path:
        del sys.path[0]  # this file's folder; each candidate gets its own folder there
    config = channel.receive()
    if config is None:
        os._exit(0)
    report = preload(config["preload"], channel, inheritance)
    if report["tainted"] is None:
        inheritance.rehearsal = rehearsal_code()
        gc.freeze()  # children then share the preloaded objects instead of copying them on GC
        collapse_into_huge_pages(inheritance.libc)
    inheritance.server_modules = frozenset(sys.modules)
    channel.send(dict(report, ready=True))
    if report["tainted"] is None:
        try:
            serve_loop.Serving(channel, inheritance).serve()
        except OSError:
            pass  # the client is gone
    os._exit(0)  # skip interpreter teardown: it can take seconds with torch loaded


# ---------------------------------------------------------------- preload


def preload(names, channel, inheritance):
    """Import `names` in order; stop at the first that makes forking unfaithful or unsafe."""
    preloaded, failed = [], {}
    for index, name in enumerate(names):
        channel.send({"importing": index})
        size_before = os.fstat(1).st_size  # fds 1 and 2 are the client's diagnostics file
        try:
            __import__(name)
            preloaded.append(name)
        except BaseException as exc:  # noqa: BLE001 - a user's import can raise anything; the candidate will hit (and report) it itself
            failed[name] = f"{type(exc).__name__}: {exc}"
        reason = taint_reason(size_before, inheritance)
        if reason:
            return {"preloaded": preloaded, "failed": failed, "tainted": {"index": index, "reason": reason}}
    return {"preloaded": preloaded, "failed": failed, "tainted": None}


def taint_reason(size_before, inheritance):
    """Why the import just done must not be preloaded, or None."""
    inheritance.flush_all()
    if os.fstat(1).st_size != size_before:
        return "writes output when imported (candidates must see it)"
    if _thread._count():
        return "starts a thread when imported (forking would be unsafe)"
    if gpu_driver_open():
        return "opens the GPU driver when imported (it does not survive a fork)"
    if cuda_initialized():
        return "initializes CUDA when imported (it does not survive a fork)"
    return None


def cuda_initialized():
    """Whether a loaded framework says it has initialised CUDA in this process.

    CUDA does not survive fork: a child of a server that initialised it fails at its
    first CUDA call. Opening the driver (`gpu_driver_open`) is the general sign; this
    also asks the frameworks that keep a flag, without importing anything.
    """
    torch_cuda = sys.modules.get("torch.cuda")
    check = getattr(torch_cuda, "is_initialized", None)
    try:
        return bool(check()) if check is not None else False
    except Exception:  # noqa: BLE001 - a framework's own check may fail in any way; then it has not initialised CUDA
        return False


def gpu_driver_open():
    try:
        fds = os.listdir("/proc/self/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            target = os.readlink("/proc/self/fd/" + fd)
        except OSError:
            continue
        if target.startswith(GPU_DEVICES):
            return True
    return False


# ---------------------------------------------------------------- warm-up


def load_libc():
    """The C library (fflush, prctl, madvise), or None where ctypes cannot load it."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        # looked up (and cached) once here, not in every child
        _ = (libc.prctl, libc.fflush)
        return libc
    except Exception:  # noqa: BLE001 - ctypes fails in platform-specific ways (OSError, AttributeError, ...); without libc the server still works
        return None


def rehearsal_code():
    """Do here, once, the lazy one-time set-up every child would otherwise redo (and copy).

    The first `compile()` in a process builds the AST node classes (~2-3 ms). The
    code a spare rehearses loading (child.rehearse) is compiled here too: a
    candidate loads its code and does not compile (unless its code file is unusable).
    """
    return marshal.dumps(compile(b"print(1)\n", "<autodd rehearsal>", "exec", dont_inherit=True))


def collapse_into_huge_pages(libc):
    """Back the server's big anonymous regions (the heap) with 2 MiB pages.

    A fork copies, and the child's exit tears down, one page-table entry per 4 KiB
    page: with torch loaded that is ~45k entries and most of the per-candidate
    cost. After this it is ~100x fewer entries (fork + exit measured ~3x cheaper).
    Best effort (refused by older kernels or with THP off); invisible to programs.
    """
    if libc is None or not sys.platform.startswith("linux"):
        return
    try:
        with open("/proc/self/maps") as maps:
            regions = [line.split() for line in maps]
    except OSError:
        return
    for fields in regions:
        start, end = (int(address, 16) for address in fields[0].split("-"))
        anonymous = len(fields) < 6 or fields[5] == "[heap]"
        if anonymous and fields[1] == "rw-p" and end - start >= HUGE_PAGE:
            libc.madvise(start, end - start, MADV_COLLAPSE)


if __name__ == "__main__":
    main()

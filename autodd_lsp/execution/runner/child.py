"""The fork server's child: from a fresh fork to `python path` (or `python -m module`) and its exit.

A spare child (serve_loop.py) calls `become_candidate`: it sets up what needs no
request (its own session, death with the server, a fresh `__main__`, a rehearsal
of the hot path), waits for its request on its private socket, then becomes the
candidate: fds 1/2, cwd, argv/sys.path, the GPU it may see, the code, and an
ending like Python's own (uncaught errors, `sys.exit`, threads, atexit, flush),
its status reported on that socket (`Report`) before `_exit`.

Server side only, loaded by file location with the fork server's other files:
standard library only, no import of ours, Python 3.9 syntax (see server_main.py).
What the child needs from its server comes in one `Inheritance`, made once by the
server before its first fork: no module-level state here.
"""

import atexit
import builtins
import marshal
import os
import signal
import socket
import sys
import types

PR_SET_PDEATHSIG = 1
MAX_REQUEST = 1 << 16  # path, cwd and folder, as a spare child receives them
HIGH_FD = 1023  # where a candidate keeps its report socket (lowered to RLIMIT_NOFILE - 1)


class Inheritance:
    """What every child of a server inherits from it, set once before the first fork.

    `script_globals`, `script_loader_type`: what Python gives a script's `__main__`
    (names in order, the loader's type), as seen by the server's own entry script;
    `safe_path`: -P / PYTHONSAFEPATH (no script folder on sys.path); `libc`: the C
    library or None; `server_pid`; `code_header`: what the client's code files must
    start with (wire.code_header); `server_modules`: sys.modules once the server was
    ready (a candidate's learned imports are those beyond it); `rehearsal`: a
    marshalled code object a spare loads ahead of its request (see `rehearse`).
    """

    def __init__(self, script_globals, script_loader_type, safe_path):
        self.script_globals = script_globals
        self.script_loader_type = script_loader_type
        self.safe_path = safe_path
        self.libc = None
        self.server_pid = os.getpid()
        self.code_header = b""
        self.server_modules: frozenset[str] = frozenset()
        self.rehearsal = b""

    def flush_all(self):
        """Python's and C's stdio buffers, as exit() would flush them."""
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001 - a candidate may have replaced the streams with anything; exit() ignores their failures too
                pass
        if self.libc is not None:
            self.libc.fflush(None)


def become_candidate(server, channel_sock, report):
    """Set up what needs no request, wait for it, then run the candidate and exit.

    `server`: the Inheritance; `channel_sock`: the server's socket to the client
    (closed here); `report`: this child's Report. Never returns.
    """
    inherited = None  # the preload's finalizers: referenced by this frame, which never returns
    status = 70
    try:
        die_with_server(server)
        channel_sock.close()
        os.setsid()  # its own session and group: killing the group reaches its children
        inherited = disarm_inherited_finalizers()
        main_module = fresh_main(server)
        rehearse(server, report)
        data, fds, _flags, _address = socket.recv_fds(report.sock, MAX_REQUEST, 2)
        if not data:
            os._exit(0)  # the server let go of this spare
        report.pid = os.getpid()  # from now on it is a candidate, with a status to report
        path, cwd, folder, code_file, imports_file, gpu, module, *args = (
            data.decode("utf-8", "surrogatepass").split("\0")
        )
        if gpu:  # CUDA reads it at its initialisation, which only a child ever does (see server_main)
            os.environ["CUDA_VISIBLE_DEVICES"] = gpu
        os.dup2(fds[0], 1)
        os.dup2(fds[1], 2)
        for fd in fds:
            os.close(fd)
        os.chdir(cwd)
        if module:
            status = run_module_as_main(server, module, args, cwd)  # runpy makes its own `__main__` for it
        else:
            status = run_as_main(server, path, folder, main_module, code_file)
        if imports_file:
            record_imports(server, imports_file)
    except BaseException as exc:  # noqa: BLE001 - our own failure, of any kind; never fall back into the server loop
        os.write(2, (f"autodd fork server: {exc!r}\n").encode())
        status = 70
    exit_like_python(report, status)
    del inherited  # never reached: exit_like_python ends the process


class Report:
    """A candidate's end of its private socket (the request comes in, its status goes out).

    Kept on a high descriptor, where it leaves a program the ones it would get in a
    plain run (3, 4, ...); only the candidate process itself (not a fork of it) reports.
    """

    def __init__(self, sock):
        self.pid = None  # the candidate's, once it has its request
        self.sock = sock
        try:
            high = max(3, min(HIGH_FD, os.sysconf("SC_OPEN_MAX") - 1))
            os.dup2(sock.fileno(), high, inheritable=False)
            self.sock = socket.socket(fileno=high)
            sock.close()
        except (OSError, ValueError):
            pass
        self.identity = self.identify()

    def identify(self):
        stat = os.fstat(self.sock.fileno())
        return stat.st_dev, stat.st_ino

    def send(self, status):
        """Release fds 1/2 (all output was flushed: the client sees EOF now) and report `status`."""
        if os.getpid() != self.pid:
            return
        try:
            if self.identify() != self.identity:
                return  # the program closed ours and reused the number
            fd = self.sock.fileno()
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            os.close(null)
            os.write(fd, str(status).encode())
        except OSError:
            pass


def rehearse(server, report):
    """While waiting, go through the request's hot path without effect.

    A fork's child pays a copy-on-write fault for each page it first writes, and
    the code it runs (reading, loading code, printing) writes many; taking them now
    takes them off the candidate's time. Nothing here is visible to the candidate.
    """
    try:
        read_source(os.devnull)
        marshal.loads(server.rehearsal)
        print(end="")
        report.identify()
    except Exception:  # noqa: BLE001 - a rehearsal only warms caches; its failure changes nothing the candidate sees
        pass


def die_with_server(server):
    """Linux: if the server dies before the client learns our pid, nobody could kill us.

    (A spare whose server died sees its request socket close and exits by itself.)
    """
    if server.libc is not None and sys.platform.startswith("linux"):
        server.libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != server.server_pid:  # it died before the prctl
            os._exit(70)


def run_as_main(server, path, folder, main_module, code_file=""):
    """Run `path` as `python path` would; return the exit status (negative: a signal).

    `folder` is the one holding `path` once symlinks are resolved (sys.path[0]); the
    client works it out, as it is cheaper there than in a cold child. `code_file`,
    if usable, holds the client's compilation of `path`, which saves compiling here.
    """
    sys.argv[:] = [path]
    if hasattr(sys, "orig_argv"):
        sys.orig_argv[:] = [sys.orig_argv[0], path]
    if not server.safe_path:
        sys.path.insert(0, folder)
    name_main(server, main_module, path)

    def body():
        codes = load_code(server, code_file) if code_file else None
        if codes is None:
            codes = [compile(read_source(path), path, "exec", dont_inherit=True)]
        for code in codes:  # the module's top-level chunks, in order
            exec(code, main_module.__dict__)

    return run_guarded(server, body, path)


def run_module_as_main(server, module, args, cwd):
    """Run `module` as `python -m module *args` would (pytest, for a test of the file); the exit status.

    As `-m` does: sys.argv[0] becomes the module's file, sys.path[0] the working
    directory, and the module runs as `__main__` (runpy does both).
    """
    sys.argv[:] = ["-m", *args]
    if hasattr(sys, "orig_argv"):
        sys.orig_argv[:] = [sys.orig_argv[0], "-m", module, *args]
    if not server.safe_path:
        sys.path.insert(0, cwd)

    def body():
        import runpy

        runpy.run_module(module, run_name="__main__", alter_sys=True)

    return run_guarded(server, body, module)


def run_guarded(server, body, path):
    """Call `body` (the program); what Python's own handlers do with how it ends; the exit status."""
    try:
        body()
        status = 0
    except CannotOpen as exc:
        program = getattr(sys, "orig_argv", [sys.executable])[0]
        sys.stderr.write(f"{program}: can't open file {path!r}: [Errno {exc.errno}] {exc.strerror}\n")
        status = 2
    except SystemExit as exc:
        status = system_exit_status(exc)
    except BaseException as exc:  # noqa: BLE001 - the user's program can raise anything; reported as Python would
        status = report_uncaught(exc)
    return shut_down(server, status)


def disarm_inherited_finalizers():
    """Leave weakref.finalize callbacks made while preloading to the server; the old registry.

    They guard the server's own import-time objects (torch registers ~130), which
    later children share: a child running them (at exit, typically) could only tear
    down shared state, and would pay copy-on-write faults for it. A fresh registry
    keeps them inert here; the candidate's own finalizers still run as usual. The
    caller keeps the old registry referenced: freeing it would touch (copy) every entry.
    """
    weakref = sys.modules.get("weakref")
    if weakref is not None and isinstance(getattr(weakref.finalize, "_registry", None), dict):
        inherited = weakref.finalize._registry
        weakref.finalize._registry = {}
        return inherited
    return None


def fresh_main(server):
    """A new `__main__` with the names Python gives a script, in its order; `name_main` completes it."""
    main_module = types.ModuleType("__main__")
    values: dict[str, object] = {"__file__": None, "__builtins__": builtins, "__annotations__": {}, "__cached__": None, "__loader__": None}
    for name in server.script_globals:
        if name in values:
            setattr(main_module, name, values[name])
    sys.modules["__main__"] = main_module
    return main_module


def name_main(server, main_module, path):
    if "__file__" in server.script_globals:
        main_module.__file__ = path
    if "__loader__" in server.script_globals and server.script_loader_type is not type(None):
        main_module.__loader__ = server.script_loader_type("__main__", path)


class CannotOpen(Exception):
    def __init__(self, error):
        super().__init__(error.errno, error.strerror)
        self.errno, self.strerror = error.errno, error.strerror


def read_source(path):
    """The file's bytes (plain os calls: cheaper than io's objects in a cold child)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            chunks: list[bytes] = []
            while True:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)
        finally:
            os.close(fd)
    except OSError as exc:
        raise CannotOpen(exc) from None


def record_imports(server, path):
    """List, one a line, the modules imported since the server was ready (in import order)."""
    try:
        names = [name for name in list(sys.modules) if name not in server.server_modules and name != "__main__"]
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, "\n".join(names).encode("utf-8", "surrogatepass"))
        finally:
            os.close(fd)
    except Exception:  # noqa: BLE001 - best effort: without the list the client only learns fewer imports
        pass


def load_code(server, code_file):
    """The code objects in `code_file`, or None if made by another Python or unreadable."""
    header = server.code_header
    try:
        data = read_source(code_file)
        if data[: len(header)] == header:
            codes = marshal.loads(memoryview(data)[len(header) :])
            return codes if isinstance(codes, tuple) else None
    except Exception:  # noqa: BLE001 - unmarshalling foreign or damaged data fails in many ways; then the source is compiled
        pass
    return None


def system_exit_status(exc):
    """What Python's own handler does with an uncaught SystemExit."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write(str(code) + "\n")
    except Exception:  # noqa: BLE001 - str() of the user's exit code runs user code; Python ignores its failure too
        pass
    return 1


def report_uncaught(exc):
    """Print `exc` like Python's default handler, from the candidate's own frame on."""
    ours = globals()  # this module's frames (run_guarded, body) come first
    traceback = exc.__traceback__
    while traceback is not None and traceback.tb_frame.f_globals is ours:
        traceback = traceback.tb_next
    exc.__traceback__ = traceback
    sys.last_type, sys.last_value, sys.last_traceback = type(exc), exc, traceback
    if sys.version_info >= (3, 12):
        sys.last_exc = exc
    try:
        sys.excepthook(type(exc), exc, traceback)
    except BaseException:  # noqa: BLE001 - the user's excepthook can raise anything; Python falls back to the default one
        sys.__excepthook__(type(exc), exc, traceback)
    # Python re-raises an uncaught Ctrl-C as SIGINT so its parent sees the signal.
    return -signal.SIGINT if isinstance(exc, KeyboardInterrupt) else 1


def shut_down(server, status):
    """What Py_Finalize does that a program can observe: join threads, atexit, flush."""
    threading = sys.modules.get("threading")
    if threading is not None and hasattr(threading, "_shutdown"):
        try:
            threading._shutdown()
        except BaseException:  # noqa: BLE001 - threads' shutdown runs user code; Py_Finalize goes on regardless
            pass
    try:
        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001 - atexit handlers are user code; Py_Finalize goes on regardless
        pass
    try:
        sys.stdout.flush()
    except Exception:  # noqa: BLE001 - a user's stdout may fail in any way; Py_Exit's status says so
        status = 120 if status >= 0 else status  # what Py_Exit returns when stdout cannot be flushed
    server.flush_all()
    return status


def exit_like_python(report, status):
    """Report `status`, then end as Python would with it (negative: by that signal)."""
    report.send(status)
    if status < 0:
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    os._exit(status & 0xFF)

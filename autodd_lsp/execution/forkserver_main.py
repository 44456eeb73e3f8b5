"""The fork server: runs under the candidates' interpreter, imports the heavy
modules once, then forks one fresh child per candidate.

Started by ForkServerBackend as `python forkserver_main.py FD`, FD being the
server's end of a Unix socket pair. Standalone on purpose: the candidates'
interpreter need not have autodd_lsp installed, so nothing of ours is imported
(and the syntax stays Python 3.9's). The client imports `Channel` from here.

Protocol (messages are dicts, framed as `Channel` says):
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
exit status out, ahead of the kernel's slow teardown of the process (see `Candidate`).
"""

# What Python put in this script's globals is what it puts in any script's: a
# candidate's fresh __main__ gets the same names (whatever the Python version).
SCRIPT_GLOBALS = [name for name in globals() if name.startswith("__")]

import atexit  # noqa: E402
import builtins  # noqa: E402
import gc  # noqa: E402
import marshal  # noqa: E402
import os  # noqa: E402
import select  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import types  # noqa: E402

import _thread  # noqa: E402

SELF = sys.modules[__name__]  # keeps these globals alive once a candidate replaces __main__
SCRIPT_LOADER_TYPE = type(globals().get("__loader__"))
SAFE_PATH = bool(getattr(sys.flags, "safe_path", False))  # -P / PYTHONSAFEPATH: no script folder on sys.path
GPU_DEVICES = ("/dev/nvidia", "/dev/kfd", "/dev/dri")
PR_SET_PDEATHSIG = 1
MADV_COLLAPSE = 25  # Linux >= 6.1
HUGE_PAGE = 2 << 20
LIBC = None  # the C library, loaded in main(): a client importing Channel needs no ctypes
SERVER_PID = None
MESSAGE_FORMAT = 4  # marshal's, for Channel messages
MAX_REQUEST = 1 << 16  # path, cwd and folder, as a spare child receives them
HIGH_FD = 1023  # where a candidate keeps its report socket (lowered to RLIMIT_NOFILE - 1)
REPORT = None  # in a candidate: its Report
REHEARSAL = b""  # in the server and its children: a marshalled code object (see warm_up_children)
INHERITED_FINALIZERS = None
CODE_HEADER = None  # in the server and its children: code_header()
SERVER_MODULES = frozenset()  # what sys.modules held when the server was ready


class Channel:
    """Messages (dicts of plain values) over a stream socket; file descriptors ride along.

    Each is a 4-byte length, then the message marshalled: cheaper than JSON at both
    ends, and nothing to import (the server's every import is also in each
    candidate's `sys.modules`). Both ends are our own processes; format version 4
    reads alike in every Python 3 that can run the server.
    """

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""
        self.fds = []
        self.closed = False

    def send(self, message, fds=()):
        body = marshal.dumps(message, MESSAGE_FORMAT)
        data = len(body).to_bytes(4, "little") + body
        sent = socket.send_fds(self.sock, [data], list(fds)) if fds else self.sock.send(data)
        if sent < len(data):
            self.sock.sendall(data[sent:])

    def pop(self):
        """The next complete message already received, or None."""
        buffer = self.buffer
        if len(buffer) < 4:
            return None
        end = 4 + int.from_bytes(buffer[:4], "little")
        if len(buffer) < end:
            return None
        self.buffer = buffer[end:]
        return marshal.loads(buffer[4:end])

    def fill(self):
        """One receive (blocks unless the socket is readable); False once the peer is gone."""
        try:
            data, fds, _flags, _address = socket.recv_fds(self.sock, 1 << 16, 8)
        except OSError:
            data, fds = b"", []
        self.fds.extend(fds)
        if not data:
            self.closed = True
            return False
        self.buffer += data
        return True

    def receive(self):
        """Block for the next message; None once the peer is gone."""
        while True:
            message = self.pop()
            if message is not None or self.closed or not self.fill():
                return message


def code_header():
    """What a marshalled code object must start with to be run here instead of compiled."""
    from importlib.util import MAGIC_NUMBER

    return MAGIC_NUMBER + bytes([sys.flags.optimize & 0xFF])


def main():
    global LIBC, SERVER_PID, CODE_HEADER, SERVER_MODULES
    CODE_HEADER = code_header()
    LIBC = load_libc()
    SERVER_PID = os.getpid()
    channel = Channel(socket.socket(fileno=int(sys.argv[1])))
    if not SAFE_PATH:
        del sys.path[0]  # this file's folder; each candidate gets its own folder there
    config = channel.receive()
    if config is None:
        os._exit(0)
    report = preload(config["preload"], channel)
    if report["tainted"] is None:
        warm_up_children()
        gc.freeze()  # children then share the preloaded objects instead of copying them on GC
        collapse_into_huge_pages()
    SERVER_MODULES = frozenset(sys.modules)
    channel.send(dict(report, ready=True))
    if report["tainted"] is None:
        try:
            serve(channel)
        except OSError:
            pass  # the client is gone
    os._exit(0)  # skip interpreter teardown: it can take seconds with torch loaded


# ---------------------------------------------------------------- preload


def preload(names, channel):
    """Import `names` in order; stop at the first that makes forking unfaithful or unsafe."""
    preloaded, failed = [], {}
    for index, name in enumerate(names):
        channel.send({"importing": index})
        size_before = os.fstat(1).st_size  # fds 1 and 2 are the client's diagnostics file
        try:
            __import__(name)
            preloaded.append(name)
        except BaseException as exc:  # the candidate will hit (and report) it itself
            failed[name] = "%s: %s" % (type(exc).__name__, exc)
        reason = taint_reason(size_before)
        if reason:
            return {"preloaded": preloaded, "failed": failed, "tainted": {"index": index, "reason": reason}}
    return {"preloaded": preloaded, "failed": failed, "tainted": None}


def taint_reason(size_before):
    """Why the import just done must not be preloaded, or None."""
    flush_all()
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
    except Exception:
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


def load_libc():
    """The C library (fflush, prctl, madvise), or None where ctypes cannot load it."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        libc.prctl, libc.fflush  # looked up (and cached) once here, not in every child
        return libc
    except Exception:
        return None


def flush_all():
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    if LIBC is not None:
        LIBC.fflush(None)  # C stdio buffers, as exit() would


def warm_up_children():
    """Do here, once, the lazy one-time set-up every child would otherwise redo (and copy).

    The first `compile()` in a process builds the AST node classes (~2-3 ms). The
    code a spare rehearses loading is compiled here too: a candidate loads its code
    and does not compile (unless its code file is unusable).
    """
    global REHEARSAL
    REHEARSAL = marshal.dumps(compile(b"print(1)\n", "<autodd rehearsal>", "exec", dont_inherit=True))


def collapse_into_huge_pages():
    """Back the server's big anonymous regions (the heap) with 2 MiB pages.

    A fork copies, and the child's exit tears down, one page-table entry per 4 KiB
    page: with torch loaded that is ~45k entries and most of the per-candidate
    cost. After this it is ~100x fewer entries (fork + exit measured ~3x cheaper).
    Best effort (refused by older kernels or with THP off); invisible to programs.
    """
    if LIBC is None or not sys.platform.startswith("linux"):
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
            LIBC.madvise(start, end - start, MADV_COLLAPSE)


# ---------------------------------------------------------------- serving


def serve(channel):
    """Per request, hand it to the spare child forked in advance; fork the next one meanwhile.

    The next spare is forked (and sets itself up) while the candidate runs, so a
    request that follows right away -- the client prepares the next candidate
    while this one runs -- finds it ready. It is as fresh as one forked on
    demand: the server does nothing in between but wait.
    """
    spare = None
    flush_all()  # nothing writes to the server's buffers from here on: no fork duplicates them
    try:
        while not channel.closed:
            spare = spare or Spare(channel)
            request = channel.receive()
            if request is None:
                return
            fds, channel.fds = channel.fds[:2], channel.fds[2:]
            started = time.monotonic()
            taker, spare = spare, None
            try:
                candidate = hand_over(taker, request, fds, channel)
            finally:
                for fd in fds:
                    os.close(fd)
            channel.send({"pid": candidate.pid})
            spare = Spare(channel, candidate.descriptors())
            status = candidate.wait(channel)
            channel.send({"status": status, "duration": time.monotonic() - started})
            if candidate.reported:  # the kernel is still tearing it down: reap it before the next request
                candidate.reap()
    finally:
        if spare is not None:
            spare.discard()


class Spare:
    """A child forked ahead of its request, set up and waiting for it on a private socket.

    Once it runs a candidate, the same socket brings its exit status early (see `Candidate`).
    """

    def __init__(self, channel, foreign=()):
        """`foreign`: the server's descriptors for the running candidate, closed in the child."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        theirs = Report(theirs)  # made here: the server's own pages are not shared yet
        pid = os.fork()
        if pid == 0:
            ours.close()
            for fd in foreign:
                os.close(fd)
            become_candidate(channel, theirs)  # never returns
        theirs.sock.close()
        self.pid, self.sock = pid, ours

    def discard(self):
        """Kill and reap it (it waits, so it has no children of its own)."""
        self.sock.close()
        kill_group(self.pid)
        os.waitpid(self.pid, 0)


def hand_over(spare, request, fds, channel):
    """Give `spare` the request (path, cwd, folder) and the output pipes; return the Candidate."""
    fields = (
        request["path"], request["cwd"], request["folder"], request.get("code", ""), request.get("imports", ""),
        request.get("gpu", ""), request.get("module", ""), *request.get("args", ()),
    )
    message = "\0".join(fields).encode("utf-8", "surrogatepass")
    for attempt in range(2):
        try:
            socket.send_fds(spare.sock, [message], fds)
            return Candidate(spare.pid, spare.sock)
        except OSError:  # it was killed while waiting: a fresh one takes the request
            spare.discard()
            if attempt:
                raise
            spare = Spare(channel)


class Candidate:
    """A running candidate: its pid (= its process group) and the socket of its early report.

    A candidate that ends through Python (not a crash, not os._exit) sends its exit
    status just before `_exit`, with its output complete and its fds 1/2 released.
    The server then sweeps the group at once and answers the client, instead of
    waiting until the kernel has torn the process down (~0.3 ms small, ~2 ms with
    torch); the leader is reaped right after (forking the next spare meanwhile),
    before the next request.
    """

    def __init__(self, pid, sock):
        self.pid, self.sock = pid, sock
        self.pidfd = open_pidfd(pid)
        self.reported = False

    def wait(self, channel):
        """The exit status; kills the group if the client goes away, and at the end."""
        if self.pidfd is None:  # no pidfd: only the real exit can be waited for
            self.sock.close()
            return self.reap()
        watched = [self.pidfd, channel.sock, self.sock]
        while True:
            ready = select.select(watched, [], [])[0]
            if self.pidfd in ready:
                return self.reap()
            if self.sock in ready:
                status = self.report()
                if status is not None:
                    kill_group(self.pid)  # the leader lives, so the group id is still its own
                    self.reported = True
                    return status
                watched.remove(self.sock)  # closed by the candidate: wait for the exit
            if channel.sock in ready and not channel.fill():
                kill_group(self.pid)
                watched.remove(channel.sock)

    def descriptors(self):
        return [fd for fd in (self.pidfd, self.sock.fileno()) if fd is not None]

    def report(self):
        try:
            data = self.sock.recv(64)
            return int(data) if data else None
        except (OSError, ValueError):
            return None

    def release(self):
        """Close our descriptors for it."""
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None
        self.sock.close()

    def reap(self):
        """Wait for the real exit; sweep the group (the unreaped leader still reserves its id); reap."""
        self.release()
        if hasattr(os, "waitid"):
            os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOWAIT)
        kill_group(self.pid)  # stray children
        _, status = os.waitpid(self.pid, 0)
        return os.waitstatus_to_exitcode(status)


def open_pidfd(pid):
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None  # then a vanished client is noticed only after the candidate ends


def kill_group(pgid):
    for kill in (os.killpg, os.kill):
        try:
            kill(pgid, signal.SIGKILL)
            return
        except ProcessLookupError:
            continue
        except OSError:
            return


# ---------------------------------------------------------------- the child


def become_candidate(channel, report):
    """Set up what needs no request, wait for it, then run the candidate and exit."""
    global REPORT
    try:
        die_with_server()
        channel.sock.close()
        os.setsid()  # its own session and group: killing the group reaches its children
        disarm_inherited_finalizers()
        main_module = fresh_main()
        REPORT = report
        rehearse()
        data, fds, _flags, _address = socket.recv_fds(report.sock, MAX_REQUEST, 2)
        if not data:
            os._exit(0)  # the server let go of this spare
        report.pid = os.getpid()  # from now on it is a candidate, with a status to report
        path, cwd, folder, code_file, imports_file, gpu, module, *args = (
            data.decode("utf-8", "surrogatepass").split("\0")
        )
        if gpu:  # CUDA reads it at its initialisation, which only a child ever does (see cuda_initialized)
            os.environ["CUDA_VISIBLE_DEVICES"] = gpu
        os.dup2(fds[0], 1)
        os.dup2(fds[1], 2)
        for fd in fds:
            os.close(fd)
        os.chdir(cwd)
        if module:
            status = run_module_as_main(module, args, cwd)  # runpy makes its own `__main__` for it
        else:
            status = run_as_main(path, folder, main_module, code_file)
        if imports_file:
            record_imports(imports_file)
    except BaseException as exc:  # our own failure; never fall back into the server loop
        os.write(2, ("autodd fork server: %r\n" % (exc,)).encode())
        status = 70
    exit_like_python(status)


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


def rehearse():
    """While waiting, go through the request's hot path without effect.

    A fork's child pays a copy-on-write fault for each page it first writes, and
    the code it runs (reading, loading code, printing) writes many; taking them now
    takes them off the candidate's time. Nothing here is visible to the candidate.
    """
    try:
        read_source(os.devnull)
        marshal.loads(REHEARSAL)
        print(end="")
        REPORT.identify()
    except Exception:
        pass


def die_with_server():
    """Linux: if the server dies before the client learns our pid, nobody could kill us.

    (A spare whose server died sees its request socket close and exits by itself.)
    """
    if LIBC is not None and sys.platform.startswith("linux"):
        LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != SERVER_PID:  # it died before the prctl
            os._exit(70)


def run_as_main(path, folder, main_module, code_file=""):
    """Run `path` as `python path` would; return the exit status (negative: a signal).

    `folder` is the one holding `path` once symlinks are resolved (sys.path[0]); the
    client works it out, as it is cheaper there than in a cold child. `code_file`,
    if usable, holds the client's compilation of `path`, which saves compiling here.
    """
    sys.argv[:] = [path]
    if hasattr(sys, "orig_argv"):
        sys.orig_argv[:] = [sys.orig_argv[0], path]
    if not SAFE_PATH:
        sys.path.insert(0, folder)
    name_main(main_module, path)

    def body():
        codes = load_code(code_file) if code_file else None
        if codes is None:
            codes = [compile(read_source(path), path, "exec", dont_inherit=True)]
        for code in codes:  # the module's top-level chunks, in order
            exec(code, main_module.__dict__)

    return run_guarded(body, path)


def run_module_as_main(module, args, cwd):
    """Run `module` as `python -m module *args` would (pytest, for a test of the file); the exit status.

    As `-m` does: sys.argv[0] becomes the module's file, sys.path[0] the working
    directory, and the module runs as `__main__` (runpy does both).
    """
    sys.argv[:] = ["-m", *args]
    if hasattr(sys, "orig_argv"):
        sys.orig_argv[:] = [sys.orig_argv[0], "-m", module, *args]
    if not SAFE_PATH:
        sys.path.insert(0, cwd)

    def body():
        import runpy

        runpy.run_module(module, run_name="__main__", alter_sys=True)

    return run_guarded(body, module)


def run_guarded(body, path):
    """Call `body` (the program); what Python's own handlers do with how it ends; the exit status."""
    try:
        body()
        status = 0
    except CannotOpen as exc:
        program = getattr(sys, "orig_argv", [sys.executable])[0]
        sys.stderr.write("%s: can't open file %r: [Errno %d] %s\n" % (program, path, exc.errno, exc.strerror))
        status = 2
    except SystemExit as exc:
        status = system_exit_status(exc)
    except BaseException as exc:
        status = report_uncaught(exc)
    return shut_down(status)


def disarm_inherited_finalizers():
    """Leave weakref.finalize callbacks made while preloading to the server.

    They guard the server's own import-time objects (torch registers ~130), which
    later children share: a child running them (at exit, typically) could only tear
    down shared state, and would pay copy-on-write faults for it. A fresh registry
    keeps them inert here; the candidate's own finalizers still run as usual.
    """
    global INHERITED_FINALIZERS
    weakref = sys.modules.get("weakref")
    if weakref is not None and isinstance(getattr(weakref.finalize, "_registry", None), dict):
        # Kept referenced: freeing the old registry would touch (copy) every entry.
        INHERITED_FINALIZERS = weakref.finalize._registry
        weakref.finalize._registry = {}


def fresh_main():
    """A new `__main__` with the names Python gives a script, in its order; `name_main` completes it."""
    main_module = types.ModuleType("__main__")
    values = {"__file__": None, "__builtins__": builtins, "__annotations__": {}, "__cached__": None, "__loader__": None}
    for name in SCRIPT_GLOBALS:
        if name in values:
            setattr(main_module, name, values[name])
    sys.modules["__main__"] = main_module
    return main_module


def name_main(main_module, path):
    if "__file__" in SCRIPT_GLOBALS:
        main_module.__file__ = path
    if "__loader__" in SCRIPT_GLOBALS and SCRIPT_LOADER_TYPE is not type(None):
        main_module.__loader__ = SCRIPT_LOADER_TYPE("__main__", path)


class CannotOpen(Exception):
    def __init__(self, error):
        super().__init__(error.errno, error.strerror)
        self.errno, self.strerror = error.errno, error.strerror


def read_source(path):
    """The file's bytes (plain os calls: cheaper than io's objects in a cold child)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            chunks = []
            while True:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)
        finally:
            os.close(fd)
    except OSError as exc:
        raise CannotOpen(exc) from None


def record_imports(path):
    """List, one a line, the modules imported since the server was ready (in import order)."""
    try:
        names = [name for name in list(sys.modules) if name not in SERVER_MODULES and name != "__main__"]
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, "\n".join(names).encode("utf-8", "surrogatepass"))
        finally:
            os.close(fd)
    except Exception:
        pass


def load_code(code_file):
    """The code objects in `code_file`, or None if made by another Python or unreadable."""
    try:
        data = read_source(code_file)
        if data[: len(CODE_HEADER)] == CODE_HEADER:
            codes = marshal.loads(memoryview(data)[len(CODE_HEADER) :])
            return codes if isinstance(codes, tuple) else None
    except Exception:
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
    except Exception:
        pass
    return 1


def report_uncaught(exc):
    """Print `exc` like Python's default handler, from the candidate's own frame on."""
    traceback = exc.__traceback__
    while traceback is not None and traceback.tb_frame.f_globals is SELF.__dict__:
        traceback = traceback.tb_next
    exc.__traceback__ = traceback
    sys.last_type, sys.last_value, sys.last_traceback = type(exc), exc, traceback
    if sys.version_info >= (3, 12):
        sys.last_exc = exc
    try:
        sys.excepthook(type(exc), exc, traceback)
    except BaseException:
        sys.__excepthook__(type(exc), exc, traceback)
    # Python re-raises an uncaught Ctrl-C as SIGINT so its parent sees the signal.
    return -signal.SIGINT if isinstance(exc, KeyboardInterrupt) else 1


def shut_down(status):
    """What Py_Finalize does that a program can observe: join threads, atexit, flush."""
    threading = sys.modules.get("threading")
    if threading is not None and hasattr(threading, "_shutdown"):
        try:
            threading._shutdown()
        except BaseException:
            pass
    try:
        atexit._run_exitfuncs()
    except BaseException:
        pass
    try:
        sys.stdout.flush()
    except Exception:
        status = 120 if status >= 0 else status  # what Py_Exit returns when stdout cannot be flushed
    flush_all()
    return status


def exit_like_python(status):
    if REPORT is not None:
        REPORT.send(status)
    if status < 0:
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    os._exit(status & 0xFF)


if __name__ == "__main__":
    main()

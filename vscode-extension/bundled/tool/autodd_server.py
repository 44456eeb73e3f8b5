"""Starts the AutoDD language server that ships inside the VS Code extension.

Contract: `<python> autodd_server.py [server args]` runs `autodd_lsp.server` with
the extension's `bundled/libs` (the package and its runtime dependencies, put
there by scripts/bundle-python.sh) first on `sys.path`, so any Python 3.10+
interpreter works without installing anything. An `autodd-lsp` installed in
that interpreter wins only when its version is newer than the bundled one. The
choice is written to stderr (the extension's "AutoDD" log). `--check` prints
that choice as one JSON line and exits 0 once the server's modules import
(for a too old interpreter: only `python` and `pythonVersion`, and exit status 3).

Only this process gets `bundled/libs`: it is put on `sys.path`, never on
PYTHONPATH, so the user's programs (run by the server with the same interpreter)
never see the bundled copies of rich, pygls and the rest.

An interpreter older than 3.10 gets one line on stderr and exit status 3 (the
extension turns it into its message); this file therefore uses nothing newer
than Python 3.6 syntax.
"""

import json
import os
import re
import sys

MINIMUM = (3, 10)
TOO_OLD = 3
DIST = "autodd-lsp"
TOOL = os.path.dirname(os.path.abspath(__file__))
LIBS = os.path.join(os.path.dirname(TOOL), "libs")


def version_key(text):
    """'0.10.2' -> (0, 10, 2); anything after the leading numbers is ignored."""
    match = re.match(r"\d+(?:\.\d+)*", text or "")
    return tuple(int(part) for part in match.group(0).split(".")) if match else ()


def installed_version(path):
    """The version of `autodd-lsp` found on `path` (a sys.path list), or None."""
    from importlib.metadata import distributions

    for dist in distributions(path=path):
        if (dist.metadata["Name"] or "").lower().replace("_", "-") == DIST:
            return dist.version
    return None


def choose():
    """Puts the chosen copy first on sys.path; returns what was chosen, for the log."""
    user_path = [p for p in sys.path if os.path.abspath(p or os.curdir) != TOOL]
    sys.path[:] = user_path
    bundled = installed_version([LIBS]) if os.path.isdir(LIBS) else None
    user = installed_version(user_path)
    if bundled is None and user is None:
        using = "none"
    elif bundled is None or (user is not None and version_key(user) > version_key(bundled)):
        using = "user"
        if os.path.isdir(LIBS):
            sys.path.append(LIBS)  # a missing dependency of the user's copy may still be found
    else:
        using = "bundled"
        sys.path.insert(0, LIBS)
    return {
        "python": sys.executable,
        "pythonVersion": "%d.%d.%d" % sys.version_info[:3],
        "bundled": bundled,
        "user": user,
        "using": using,
    }


def describe(choice):
    if choice["using"] == "bundled":
        text = "the bundled autodd-lsp %s" % choice["bundled"]
        if choice["user"]:
            text += " (the interpreter's own %s is not newer)" % choice["user"]
    elif choice["using"] == "user":
        text = "the interpreter's own autodd-lsp %s" % choice["user"]
        text += " (newer than the bundled %s)" % choice["bundled"] if choice["bundled"] else " (nothing bundled)"
    else:
        text = "no autodd-lsp at all (neither bundled nor installed)"
    return "autodd-lsp: Python %s at %s; using %s" % (choice["pythonVersion"], choice["python"], text)


def main(argv):
    if sys.version_info[:2] < MINIMUM:
        if argv[:1] == ["--check"]:
            print(json.dumps({"python": sys.executable, "pythonVersion": "%d.%d.%d" % sys.version_info[:3]}))
        sys.stderr.write(
            "autodd-lsp: %s is Python %d.%d; AutoDD needs Python %d.%d or newer\n"
            % ((sys.executable,) + tuple(sys.version_info[:2]) + MINIMUM)
        )
        return TOO_OLD
    choice = choose()
    sys.stderr.write(describe(choice) + "\n")
    sys.stderr.flush()
    if argv[:1] == ["--check"]:
        import autodd_lsp.server.command  # noqa: F401  (fails here, visibly, if the copy is broken)

        print(json.dumps(choice))
        return 0
    from autodd_lsp.server.command import main as server_main

    return server_main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

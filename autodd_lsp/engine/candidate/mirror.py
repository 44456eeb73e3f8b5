"""Where your own check (`--check CMD`) runs: a folder laid out like the source's, the candidate in it under the source's own name.

shrinkray's and C-Vise's convention has two halves: exit 0 means interesting, and
the test runs where the candidate *is* the test case's file. A check written for
the original by name (`python service.py`, a `driver.py` that does `import
service`, `bash check.sh` that runs it) must see the candidate, never the
original beside it. So each job slot of a check is a mirror of the folders the
check can reach by relative paths, in the job slots' private temporary folder:

  * its root stands for `root`, the deepest folder that holds both the source's
    folder and the working folder (where `autodd` was started; the editor's
    workspace folder); when they share no folder but `/`, the source's folder
    alone, and CMD then runs in the real working folder (only `{}` and
    `$AUTODD_CANDIDATE` name the candidate there);
  * the folders on the way from `root` down to the source's folder and down to
    the working folder are real folders of the mirror (`real`), so `..` from
    CMD's folder stays inside it; the candidate stands in the source's folder
    under the source's name;
  * every other entry of those folders is a copy when it is a regular file of
    at most `COPY_AT_MOST` bytes, while the slot's copies stay within
    `COPIES_AT_MOST` files and `COPY_BYTES_AT_MOST` bytes, Python files and the
    source's folder's first (a copy, so that
    `python driver.py` puts the mirror on `sys.path`: Python resolves a
    symbolic link to the script it runs); anything else is a symbolic link to
    the original entry (subfolders, big files), AutoDD's own files and
    `__pycache__` left out (Python makes a fresh one).

CMD runs in the mirror's counterpart of the working folder (`working`, relative
to the candidate's folder: `execution.Launch.shell_cwd`). Cost: one `scandir` of
each real folder and a copy of its small files, per slot, once per run (-j N: N+1
mirrors), plus one listing of each real folder after each run of CMD (`tidy`:
what the run created in the mirror is removed, so each run sees the folder as
the user had it; a copied file that a run rewrites is not restored, as in
`clean_runs.py`). What a run writes through a linked subfolder lands in the
user's folder, where `clean_runs.py` removes it. Caveats: an absolute path in
CMD names the original's folder, not the mirror; `..` out of a linked subfolder
leads to the original's parent (the kernel follows the link).
"""

from __future__ import annotations

import os
import re
import shutil

from autodd_lsp.engine.candidate.clean_runs import remove_entry

COPY_AT_MOST = 1 << 20  # bytes of one file copied into a mirror; a bigger one is linked
COPIES_AT_MOST = 500  # files copied into one slot's mirror (Python files first)
COPY_BYTES_AT_MOST = 64 << 20  # bytes copied into one slot's mirror
_LEFT_OUT = re.compile(
    r"^(\.autodd-|autodd-\d+-|__pycache__$)"
)  # job slots, private folders, bytecode


class FolderMirror:
    """The layout of a check's job slots for the source at `source` run from `working_folder`."""

    def __init__(self, source: str, working_folder: str) -> None:
        folder = os.path.realpath(os.path.dirname(os.path.abspath(source)))
        cwd = os.path.realpath(working_folder)
        common = os.path.commonpath([folder, cwd])
        self.root = folder if common == os.sep else common
        self.file_name = os.path.basename(source)
        self.source_folder = _relative(
            folder, self.root
        )  # where the candidate stands, in the mirror
        cwd_in_root = common != os.sep
        # CMD's folder, relative to the candidate's ("": the backend's own, the real working folder)
        self.working = os.path.relpath(cwd, folder) if cwd_in_root else ""
        chains = [self.source_folder, _relative(cwd, self.root) if cwd_in_root else ""]
        self.real = sorted(
            {prefix for chain in chains for prefix in _prefixes(chain)}, key=_depth
        )
        self._made: dict[
            str, dict[str, frozenset[str]]
        ] = {}  # a mirror -> real folder -> the names it made

    def build(self, into: str) -> str:
        """Make the mirror in the empty folder `into`; the candidate's path in it (created empty)."""
        entries: list[tuple[str, os.DirEntry[str]]] = []
        for rel in self.real:
            os.makedirs(os.path.join(into, rel), exist_ok=True)
            entries.extend((rel, entry) for entry in self._entries(rel))
        # Python files first, the source's folder's first: a linked script puts the original's
        # folder on sys.path, a linked data file only reads the original's bytes.
        entries.sort(
            key=lambda e: (not _is_python(e[1].name), e[0] != self.source_folder)
        )
        copies, copied = 0, 0
        made: dict[str, set[str]] = {rel: set() for rel in self.real}
        for rel, entry in entries:
            target = os.path.join(into, rel, entry.name)
            try:
                size = _file_size(entry)
                if (
                    0 <= size <= COPY_AT_MOST
                    and copies < COPIES_AT_MOST
                    and copied + size <= COPY_BYTES_AT_MOST
                ):
                    shutil.copyfile(entry.path, target)
                    shutil.copymode(entry.path, target)
                    copies, copied = copies + 1, copied + size
                else:
                    os.symlink(entry.path, target)
            except OSError:
                continue  # unreadable: the check does not see it, as it could not read it
            made[rel].add(entry.name)
        for rel in self.real:
            if rel:
                made[os.path.dirname(rel)].add(os.path.basename(rel))
        path = os.path.join(into, self.source_folder, self.file_name)
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        made[self.source_folder].add(self.file_name)
        self._made[into] = {rel: frozenset(names) for rel, names in made.items()}
        return path

    def _entries(self, rel: str) -> list[os.DirEntry[str]]:
        """The entries of the real folder `rel` the mirror holds: not the real folders below it
        (made apart), AutoDD's own files, `__pycache__` nor the source itself."""
        try:
            entries = list(os.scandir(os.path.join(self.root, rel)))
        except OSError:
            return []
        return [
            entry
            for entry in sorted(entries, key=lambda e: e.name)
            if os.path.join(rel, entry.name) not in self.real
            and not _LEFT_OUT.match(entry.name)
            and not (rel == self.source_folder and entry.name == self.file_name)
        ]

    def mirror_of(self, path: str) -> str:
        """The mirror a candidate's path stands in."""
        folder = os.path.dirname(path)
        return os.path.normpath(
            os.path.join(folder, *[os.pardir] * _depth(self.source_folder))
        )

    def tidy(self, path: str) -> None:
        """Remove what a run created in the real folders of the mirror of the candidate at `path`."""
        into = self.mirror_of(path)
        for rel, names in self._made.get(into, {}).items():
            mirrored = os.path.join(into, rel)
            try:
                present = os.listdir(mirrored)
            except OSError:
                continue
            for name in present:
                if name not in names:
                    remove_entry(os.path.join(mirrored, name))


def _is_python(name: str) -> bool:
    return name.endswith((".py", ".pyw"))


def _file_size(entry: os.DirEntry[str]) -> int:
    """A regular file's size; -1 for anything else (a folder, a link, a socket): linked."""
    if not entry.is_file(follow_symlinks=False):
        return -1
    return entry.stat(follow_symlinks=False).st_size


def _relative(path: str, root: str) -> str:
    """`path` below `root`, "" for `root` itself."""
    rel = os.path.relpath(path, root)
    return "" if rel == os.curdir else rel


def _prefixes(rel: str) -> list[str]:
    """The folders from the root down to `rel`: "a/b" -> ["", "a", "a/b"]."""
    parts = rel.split(os.sep) if rel else []
    return ["", *(os.path.join(*parts[: i + 1]) for i in range(len(parts)))]


def _depth(rel: str) -> int:
    return len(rel.split(os.sep)) if rel else 0



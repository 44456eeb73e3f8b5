"""Where `--check CMD` runs: a mirror of the source's folder per job slot (engine/candidate/mirror.py).

Real folders and files in a temporary folder; nothing runs. The engine's runs of a real
check on a project are in test_check.py.
"""

from __future__ import annotations

import os

from autodd_lsp.engine.candidate import mirror
from autodd_lsp.engine.candidate.mirror import FolderMirror
from autodd_lsp.engine.candidate.slots import JobSlots
from autodd_lsp.execution import RunResult
from autodd_lsp.execution.backend import Launch


def _project(tmp_path):
    src = tmp_path / "project" / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "__pycache__").mkdir()
    (src / "service.py").write_text("x = 1\n")
    (src / "driver.py").write_text("import service\n")
    (src / "big.bin").write_bytes(b"0" * (mirror.COPY_AT_MOST + 1))
    (src / ".autodd-1-job0-service.py").write_text("")
    (src.parent / "check.sh").write_text("cd src && python driver.py\n")
    (src.parent / "docs").mkdir()
    return src.parent


def test_the_candidate_stands_under_its_own_name_among_its_siblings(
    tmp_path, no_leftovers
):
    project = _project(tmp_path)
    layout = FolderMirror(str(project / "src" / "service.py"), str(project))
    into = tmp_path / "into"
    into.mkdir()
    path = layout.build(str(into))
    assert path == str(into / "src" / "service.py") and os.path.getsize(path) == 0
    # small files are copies (a copied driver.py puts the mirror on sys.path), the rest links
    assert not os.path.islink(into / "src" / "driver.py") and not os.path.islink(
        into / "check.sh"
    )
    assert os.path.islink(into / "src" / "big.bin") and os.path.islink(
        into / "src" / "pkg"
    )
    assert os.readlink(into / "docs") == str(project / "docs")
    assert (
        not (into / "src" / "__pycache__").exists()
        and not (into / "src" / ".autodd-1-job0-service.py").exists()
    )
    # CMD runs in the mirror's counterpart of the working folder
    launch = Launch(shell="bash check.sh", shell_cwd=layout.working)
    assert launch.folder(path) == str(into)
    assert launch.env("python", path, {})["PWD"] == str(into)
    # what a run creates in the mirror goes after it; the user's folder is untouched
    (into / "out.txt").write_text("x")
    (into / "src" / "__pycache__").mkdir()
    layout.tidy(path)
    assert sorted(os.listdir(into)) == ["check.sh", "docs", "src"]
    assert sorted(os.listdir(into / "src")) == [
        "big.bin",
        "driver.py",
        "pkg",
        "service.py",
    ]
    assert (project / "src" / "service.py").read_text() == "x = 1\n"


def test_a_working_folder_below_or_apart_from_the_source(tmp_path, no_leftovers):
    project = _project(tmp_path)
    below = FolderMirror(
        str(project / "src" / "service.py"), str(project / "src" / "pkg")
    )
    assert below.root == os.path.realpath(project / "src") and below.working == "pkg"
    assert below.real == [
        "",
        "pkg",
    ]  # pkg is a real folder: `..` from it stays in the mirror
    apart = FolderMirror(str(project / "src" / "service.py"), "/")
    assert (
        apart.root == os.path.realpath(project / "src") and apart.working == ""
    )  # CMD runs in the real "/"


def test_job_slots_each_get_a_mirror_and_read_as_the_original(tmp_path, no_leftovers):
    project = _project(tmp_path)
    layout = FolderMirror(str(project / "src" / "service.py"), str(project))
    slots = JobSlots(2, "service.py", mirror=layout)
    try:
        first, second = slots.acquire(), slots.acquire()
        assert first != second and os.path.basename(first) == "service.py"
        assert not (
            project / "src" / f".autodd-{os.getpid()}-job0-service.py"
        ).exists()  # nothing beside the source
        said = f'File "{second}", line 1\n'.encode()
        assert (
            slots.unmasked(RunResult(b"", said, 1)).stderr
            == f'File "{os.path.realpath(project)}/src/service.py", line 1\n'.encode()
        )
    finally:
        slots.remove()
    assert not os.path.exists(first)

"""Candidates compiled per top-level chunk behave exactly like `python file.py`.

Each program runs twice: from the runner, given the chunked compilation, and
in a fresh `python` that compiles the file itself; the outputs must match.
"""

from __future__ import annotations

import sys
import textwrap

import pytest

from autodd_lsp.engine.candidate.compiler import CandidateCompiler
from autodd_lsp.execution import create_backend

PROGRAMS = {
    "traceback line numbers deep in the file": '''
        """Module docstring."""
        import sys


        def helper(n):
            return 10 // n


        class Box:
            def open(self):
                return helper(0)


        print(__doc__)
        Box().open()
        ''',
    "inspect.getsource of a function far down": """
        import inspect

        def first():
            return 1

        x = [first() for _ in range(3)]

        def second(y):
            '''Its own docstring.'''
            return y + 2

        print(inspect.getsource(second))
        print(second.__code__.co_firstlineno, x)
        """,
    "future import and annotations": '''
        """Doc."""
        from __future__ import annotations

        def f(x: int) -> Missing:
            return x

        print(f.__annotations__)
        ''',
    "a later string statement is no docstring": """
        import os
        '''not the docstring'''
        print(repr(__doc__))
        """,
    "a string the chunk cutter misreads": """
        a = 1
        s = '\"\"\"' + \"\"\"
        def inside_the_string():
        \"\"\"
        def after(x):
            return 1 / x
        print(repr(s), a)
        after(0)
        """,
    "comment header, then code": """
        #!/usr/bin/env python
        # coding: utf-8
        value = 3
        def show():
            raise RuntimeError(f"value {value}")
        show()
        """,
}


@pytest.mark.slow
@pytest.mark.parametrize("program", PROGRAMS.values(), ids=PROGRAMS.keys())
def test_chunked_code_runs_like_the_file(program, tmp_path):
    path = tmp_path / "prog.py"
    text = textwrap.dedent(program).lstrip("\n")
    path.write_text(text)
    code = CandidateCompiler().compile(text, str(path))
    assert code is not None
    options = {"python": sys.executable, "cwd": str(tmp_path)}
    with create_backend("runner", **options) as runner, create_backend("subproc", **options) as fresh:
        chunked = runner.run(str(path), 30, code=code)
        plain = fresh.run(str(path), 30)
    assert runner.fallback is None
    assert (chunked.stdout, chunked.stderr, chunked.returncode) == (plain.stdout, plain.stderr, plain.returncode)


def test_a_chunk_that_fails_alone_is_compiled_with_the_rest():
    """The cutter misreads the quotes: the rest of the file is compiled as one piece, not the whole."""
    text = textwrap.dedent(PROGRAMS["a string the chunk cutter misreads"]).lstrip("\n")
    code = CandidateCompiler().compile(text, "/tmp/a.py")
    assert code is not None and len(code) == 2  # `a = 1`, then everything from the misread line on
    assert code[1].co_firstlineno == 1 and code[1].co_filename == "/tmp/a.py"


def test_a_change_recompiles_only_its_chunk():
    compiler = CandidateCompiler()
    functions = [f"def f{i}():\n    return {i}\n" for i in range(20)]
    before = compiler.compile("".join(functions), "/tmp/a.py")
    functions[5] = "def f5():\n    return 'changed'\n"
    after = compiler.compile("".join(functions), "/tmp/a.py")
    assert before is not None and after is not None
    same = [a is b for a, b in zip(before, after, strict=False)]
    assert same == [i != 5 for i in range(20)]


def test_what_only_the_whole_module_rejects_is_rejected():
    compiler = CandidateCompiler()
    assert compiler.compile("x = 1\nfrom __future__ import annotations\n", "/tmp/a.py") is None
    assert compiler.compile("def f():\n    return 1\ndef g(:\n    pass\n", "/tmp/a.py") is None


def test_moved_chunks_get_their_new_line_numbers():
    compiler = CandidateCompiler()
    body = "def late():\n    return 1\n"
    compiler.compile("a = 1\n" + body, "/tmp/a.py")
    code = compiler.compile("a = 1\nb = 2\nc = 3\n" + body, "/tmp/a.py")
    assert code is not None
    late = next(const for const in code[-1].co_consts if hasattr(const, "co_firstlineno"))
    assert (late.co_name, late.co_firstlineno, late.co_filename) == ("late", 4, "/tmp/a.py")


@pytest.mark.slow
def test_the_runner_runs_the_code_it_is_given(tmp_path):
    """The runner really uses the caller's compilation (it does not compile the file again)."""
    path = tmp_path / "prog.py"
    path.write_text("print('compiled from the file')\n")
    code = CandidateCompiler().compile("print('compiled by the caller')\n", str(path))
    with create_backend("runner", python=sys.executable, cwd=str(tmp_path)) as runner:
        result = runner.run(str(path), 30, code=code)
    assert result.stdout == b"compiled by the caller\n"


@pytest.mark.slow
def test_the_runner_runs_staged_code_only_if_it_is_the_code_run(tmp_path):
    """Code written ahead with `stage` is used by the run it was staged for, not by another."""
    path = tmp_path / "prog.py"
    path.write_text("print('compiled from the file')\n")
    compiler = CandidateCompiler()
    staged = compiler.compile("print('staged')\n", str(path))
    other = compiler.compile("print('given to run')\n", str(path))
    with create_backend("runner", python=sys.executable, cwd=str(tmp_path)) as runner:
        runner.stage(str(path), staged)
        assert runner.run(str(path), 30, code=staged).stdout == b"staged\n"
        runner.stage(str(path), staged)
        assert runner.run(str(path), 30, code=other).stdout == b"given to run\n"
        assert runner.run(str(path), 30, code=staged).stdout == b"staged\n"  # nothing staged: written now

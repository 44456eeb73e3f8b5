"""syntax/parsing.py: what all of the interpreter's threads share, used by one thread at a time."""

import threading
import warnings

from autodd_lsp.engine.candidate.compiler import compile_whole
from autodd_lsp.freeze.chunked_source import parse_python
from autodd_lsp.syntax.parsing import compile_tree, parse


def test_silencing_warnings_from_many_threads_leaves_the_filters_as_they_were(monkeypatch):
    """A candidate's warnings (compiling it from its text or its tree, parsing it) are silenced
    in every thread, and the process's filters come back as they were: interleaved
    `catch_warnings` blocks restored each other's filters."""
    shown = []
    monkeypatch.setattr(warnings, "showwarning", lambda message, *rest, **named: shown.append(message))
    warnings.simplefilter("always")  # a warning that got through would be shown (pytest restores the filters)
    before = list(warnings.filters)
    # "'tuple' object is not callable" (compiling), "invalid escape sequence" (parsing)
    texts = [f"pairs = [(1, 2) ({n}, 4)]\npattern = '\\d{n}'\n" for n in range(2000)]

    def work(part):
        for text in part:
            assert compile_whole(text, "<candidate>") is not None
            parse_python(text)
            compile_tree(parse(text), "<candidate>")

    threads = [threading.Thread(target=work, args=(texts[i::8],)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert warnings.filters == before
    assert shown == []

"""The failure oracle is not fooled by echoed source or by other failures quoting the message."""

from autodd_lsp.oracle import FailureOracle, matching_lines

ORIGINAL_OUT = """Traceback (most recent call last):
  File "/tmp/p.py", line 3, in <module>
    check()
  File "/tmp/p.py", line 2, in check
    raise ValueError("boom: shapes differ")
ValueError: boom: shapes differ
"""


def oracle():
    return FailureOracle("boom", ORIGINAL_OUT, 'def check():\n    raise ValueError("boom: shapes differ")\ncheck()\n')


def test_original_matches_under_its_exception_kind():
    assert oracle().kinds == {"ValueError"}


def test_raise_of_a_string_is_not_a_reproduction():
    candidate = "raise 'boom: shapes differ'\n"
    output = """Traceback (most recent call last):
  File "/tmp/p.py", line 1, in <module>
    raise 'boom: shapes differ'
TypeError: exceptions must derive from BaseException
"""
    assert not oracle().is_interesting(output, candidate)


def test_bare_name_raising_name_error_is_not_a_reproduction():
    candidate = "boom\n"
    output = """Traceback (most recent call last):
  File "/tmp/p.py", line 1, in <module>
    boom
NameError: name 'boom' is not defined
"""
    assert not oracle().is_interesting(output, candidate)


def test_caret_lines_and_indented_quotes_of_the_source_are_ignored():
    output = "  File \"x.py\", line 1\n    print(boom)\n          ^^^^\n      boom = 1\n"
    assert matching_lines(output, "boom", "boom = 1\n") == []


def test_a_docstring_quoting_the_error_does_not_hide_the_real_error_line():
    source = '"""Fails with:\n\nValueError: boom\n"""\nraise ValueError("boom")\n'
    assert [m.kind for m in matching_lines("ValueError: boom\n", "boom", source)] == ["ValueError"]


def test_same_failure_elsewhere_still_counts():
    candidate = 'raise ValueError("boom: shapes differ")\n'
    output = """Traceback (most recent call last):
  File "/tmp/p.py", line 1, in <module>
    raise ValueError("boom: shapes differ")
ValueError: boom: shapes differ
"""
    assert oracle().is_interesting(output, candidate)


def test_timeouts_are_not_interesting_unless_the_original_hung():
    assert not oracle().is_interesting(ORIGINAL_OUT, "", timed_out=True)
    hung = FailureOracle("boom", "boom\n", "print('bo' + 'om')\n", allow_timeout=True)
    assert hung.is_interesting("boom\n", "", timed_out=True)


def test_plain_printed_message_has_no_kind():
    printed = FailureOracle("boom", "step 3: boom\n", "print('step 3: boom')\n")
    assert printed.kinds == {None}
    assert not printed.is_interesting("NameError: name 'boom' is not defined\n", "boom\n")

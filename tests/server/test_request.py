"""autodd.minimize's argument parsed into a MinimizeRequest: engine options, settings, failures."""

import sys

import pytest

from autodd_lsp.engine import ReduceOptions
from autodd_lsp.server.request import (
    ENGINE_OPTIONS,
    MinimizeRequest,
    RunError,
    annotation_problem,
)


def options(arguments: dict, configuration: dict | None = None):
    return MinimizeRequest.parse(({"uri": "file:///p.py", **arguments},)).options(configuration, cwd="/somewhere")


def test_defaults_are_the_engines():
    default = ReduceOptions()
    chosen = options({"errMsg": "boom"})
    assert chosen.output == "beside" and chosen.failure_given
    assert (chosen.reduce.backend, chosen.reduce.timeout, chosen.reduce.jobs, chosen.reduce.python) == (
        default.backend, default.timeout, default.jobs, default.python)
    assert chosen.reduce.inline_modules is True and chosen.reduce.repeat == 0 and chosen.reduce.cwd == "/somewhere"
    assert chosen.with_failure(chosen.reduce.spec).spec.value == "boom"


def test_arguments_override_settings_and_a_setting_they_override_is_not_judged():
    chosen = options({"errMsg": "x", "timeout": 30, "jobs": 2.0, "keepImports": True},
                     {"timeout": "soon", "jobs": 4, "backend": "subproc", "repeat": 12, "output": "inPlace"})
    assert (chosen.reduce.timeout, chosen.reduce.jobs, chosen.reduce.backend, chosen.reduce.repeat) == (30.0, 2, "subproc", 12)
    assert chosen.reduce.inline_modules is False and chosen.in_place
    assert options({"errMsg": "x", "repeat": ""}, {"repeat": 5}).reduce.repeat == 5  # "" is not given


@pytest.mark.parametrize("arguments, words", [
    ({"jobs": 0}, "jobs must be at least 1"),
    ({"jobs": 1.5}, "jobs must be a whole number"),
    ({"timeout": "soon"}, "timeout must be a number"),
    ({"backend": "warp"}, "unknown backend 'warp'"),
    ({"repeat": 1}, "repeat must be 0 (automatic)"),
    ({"keepImports": "yes"}, "keepImports must be true or false"),
    ({"output": "sideways"}, "output must be one of beside, inPlace"),
    ({"interpreter": "/no/such/python"}, "interpreter not found: /no/such/python"),
    ({"interpreter": 3}, "interpreter must be a string"),
    ({"progressToken": [1]}, "progressToken must be a string or a number"),
    ({"errMsg": "x", "hang": True}, "not errMsg and hang"),
    ({"args": "--size 3"}, "args must be a list of strings"),
    ({"args": ["--size", 3]}, "args must be a list of strings"),
    ({"stdin": "no-such-input.txt"}, "stdin no-such-input.txt: no such file"),
])
def test_a_bad_argument_is_named(arguments, words):
    with pytest.raises(RunError) as raised:
        options({"errMsg": "x", **arguments})
    assert words in str(raised.value) and "\n" not in str(raised.value)


def test_an_engine_verdict_names_the_setting_not_the_command_line_flag():
    with pytest.raises(RunError) as raised:
        options({"errMsg": "x", "timeout": -1})
    assert str(raised.value) == "timeout must be a positive number of seconds, got -1"
    from autodd_lsp.engine import ReduceOptions, UsageError

    with pytest.raises(UsageError) as cli:  # the same rule, as the command line words it
        ReduceOptions(err_msg="x", timeout=-1).validate()
    assert str(cli.value) == "--timeout must be a positive number of seconds, got -1"


def test_a_bad_setting_says_it_is_a_setting():
    with pytest.raises(RunError, match=r"^setting timeout must be a number"):
        options({"errMsg": "x"}, {"timeout": "soon"})


def test_without_a_failure_the_request_asks_later():
    request = MinimizeRequest.parse(({"uri": "file:///p.py", "errMsg": ""},))
    assert request.failure is None
    assert request.options(None, None).failure_given is False
    with pytest.raises(RunError, match="expected one argument"):
        MinimizeRequest.parse(())
    with pytest.raises(RunError, match="expected a document uri"):
        MinimizeRequest.parse(({"errMsg": "x"},))


def test_every_engine_option_names_a_field_of_reduce_options():
    fields = set(ReduceOptions.__dataclass_fields__)
    assert {option.field for option in ENGINE_OPTIONS.values()} <= fields
    assert options({"errMsg": "x", "interpreter": sys.executable}).reduce.python == sys.executable


def test_annotation_problems_are_placed():
    assert annotation_problem("x = 1  # autodd: freeze\n") is None
    problem = annotation_problem("x = 1\n    # autodd: end-freeze\n")
    assert problem is not None and problem.startswith("line 2, column 5: ")


def test_program_arguments_and_input_are_request_fields(tmp_path):
    (tmp_path / "in.txt").write_text("1\n")
    chosen = MinimizeRequest.parse(({"uri": "file:///p.py", "errMsg": "x", "args": ["--size", "3"],
                                     "stdin": "in.txt"},)).options(None, cwd=str(tmp_path))
    launch = chosen.reduce.launch()
    assert launch.argv("/p.py") == ["/p.py", "--size", "3"] and launch.stdin == str(tmp_path / "in.txt")
    assert chosen.trial_options().launch() == launch  # the suggestion run starts the same way

"""`autodd.minimize`'s argument, parsed once into a typed `MinimizeRequest`.

The command's one object argument (and the client's "autodd" configuration,
which has the same keys) become engine options here and nowhere else:
`ENGINE_OPTIONS` maps each client key to a `ReduceOptions` field (derived from
the engine's options model, `engine_options()`), values are checked against
that field's type, the defaults are `ReduceOptions`' own, and
`ReduceOptions.validate` judges the result. The failure to keep is one of the
registered kinds' arguments (`autodd_lsp.kinds`: `errMsg`, `errRegex`, ...).
Neither list is written here: a new engine option or kind of failure needs no
line in this module. Everything here is pure: no I/O, no user code.
"""

from __future__ import annotations

import os
import shutil
import typing
from dataclasses import dataclass, field, replace

from autodd_lsp.engine import (
    EngineOption,
    FailureSpec,
    OptionError,
    ReduceOptions,
    RunOptions,
    UsageError,
    engine_options,
)
from autodd_lsp.freeze import parse_freeze, problems_text
from autodd_lsp.kinds import KINDS

SECTION = "autodd"  # the workspace/configuration section
OUTPUTS = ("beside", "inPlace")
DEFAULT_OUTPUT = "beside"


class RunError(Exception):
    """A run cannot start or go on; the message (one line) is for the person."""


# The client's key -> the ReduceOptions field it sets: the engine's options model's settings.
ENGINE_OPTIONS: dict[str, EngineOption] = {
    option.setting: option for option in engine_options() if option.setting
}


def failure_fields() -> list[str]:
    """autodd.minimize's arguments that name the failure to keep, one per kind (as the CLI's flags)."""
    return [kind.field for kind in KINDS.values()]


@dataclass(frozen=True)
class Layer:
    """What one source of settings (the configuration, or the arguments) sets."""

    engine: dict = field(default_factory=dict)  # ReduceOptions field -> value
    output: str | None = None


@dataclass(frozen=True)
class MinimizeSettings:
    """Everything a run needs to know about how to run."""

    reduce: ReduceOptions  # with the failure to keep when it was given, else a placeholder
    output: str  # "beside" | "inPlace"
    failure_given: bool

    @property
    def in_place(self) -> bool:
        return self.output == "inPlace"

    def with_failure(self, failure: FailureSpec) -> ReduceOptions:
        return replace(self.reduce, err_msg="", failure=failure)

    def trial_options(self) -> RunOptions:
        """The options of one trial run of the program (autodd_lsp.engine.asking.trial)."""
        return self.reduce.run_options()


@dataclass(frozen=True)
class MinimizeRequest:
    uri: str
    failure: FailureSpec | None  # None: run the program and ask the person
    arguments: Layer
    progress_token: str | int | None = None

    @classmethod
    def parse(cls, args: tuple) -> MinimizeRequest:
        """The request in `args` (the command's arguments); RunError names a bad one."""
        argument = as_argument(args)
        uri = argument.get("uri")
        if not isinstance(uri, str) or not uri:
            raise RunError("expected a document uri (\"uri\": \"file:///...\")")
        token = argument.get("progressToken")
        if token is not None and (isinstance(token, bool) or not isinstance(token, (str, int))):
            raise RunError("progressToken must be a string or a number")
        return cls(uri, failure_from_arguments(argument), parse_layer(argument), token)

    def options(self, configuration: dict | None, cwd: str | None) -> MinimizeSettings:
        """ReduceOptions defaults < the client's configuration < the arguments, validated by the engine."""
        # A setting that an argument overrides is not read (nor judged).
        overridden = {key for key, option in ENGINE_OPTIONS.items() if option.field in self.arguments.engine}
        if self.arguments.output is not None:
            overridden.add("output")
        configuration = {key: value for key, value in (configuration or {}).items() if key not in overridden}
        try:
            settings = parse_layer(configuration)
        except RunError as error:
            raise RunError(f"setting {error}") from None
        engine = {**settings.engine, **self.arguments.engine}
        output = self.arguments.output or settings.output or DEFAULT_OUTPUT
        failure = self.failure or FailureSpec.message("-")  # a placeholder until the person chooses
        try:
            reduce = ReduceOptions(**engine, failure=failure, cwd=cwd)
            reduce.validate()
        except OptionError as error:  # named by its setting, as the person set it
            raise RunError(error.named(setting_of(error.field))) from None
        except UsageError as error:
            raise RunError(str(error)) from None
        if not interpreter_exists(reduce.python):
            raise RunError(f"interpreter not found: {reduce.python}")
        return MinimizeSettings(reduce, output, failure_given=self.failure is not None)


def setting_of(option_field: str) -> str:
    """The client key that sets a ReduceOptions field (`python` -> `interpreter`)."""
    return next((key for key, option in ENGINE_OPTIONS.items() if option.field == option_field), option_field)


def as_argument(args: tuple) -> dict:
    """The one object argument of our commands."""
    if len(args) != 1 or not isinstance(args[0], dict):
        raise RunError("expected one argument: an object such as {\"uri\": \"file:///...\"}")
    return args[0]


def parse_layer(values: dict) -> Layer:
    """The engine options and the output that `values` set (absent, null or "": not set)."""
    engine = {}
    for key, option in ENGINE_OPTIONS.items():
        value = values.get(key)
        if value is None or value == "":
            continue
        value = _as_type(key, value, option.type)
        engine[option.field] = (not value) if option.negated else value
    output = values.get("output")
    if output in (None, ""):
        output = None
    elif output not in OUTPUTS:
        raise RunError(f"output must be one of {', '.join(OUTPUTS)}, got {output!r}")
    return Layer(engine, output)


def _as_type(name: str, value, hint):
    """`value` as the field's type (str, int, float, bool, or a tuple of strings from a list); RunError names `name`."""
    if typing.get_origin(hint) is tuple:  # tuple[str, ...]: a list of strings (args, passesWithEnv)
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise RunError(f"{name} must be a list of strings, got {value!r}")
        return tuple(value)
    if hint is bool:
        if not isinstance(value, bool):
            raise RunError(f"{name} must be true or false, got {value!r}")
        return value
    if hint in (int, float):
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise RunError(f"{name} must be a number, got {value!r}")
        try:
            number = float(value)
        except ValueError:
            raise RunError(f"{name} must be a number, got {value!r}") from None
        if hint is int:
            if number != int(number):
                raise RunError(f"{name} must be a whole number, got {value!r}")
            return int(number)
        return number
    if hint is str and not isinstance(value, str):
        raise RunError(f"{name} must be a string, got {value!r}")
    return value


def interpreter_exists(interpreter: str) -> bool:
    return os.path.isfile(interpreter) or shutil.which(interpreter) is not None


def annotation_problem(text: str) -> str | None:
    """The syntax error of `text`, or every freeze-annotation problem that stops a run, with their
    1-based places; None if none."""
    info = parse_freeze(text)
    error = info.syntax_error
    if error is not None:
        return f"line {error.line}, column {error.start_col + 1}: syntax error: {error.message}"
    return problems_text(info.blocking) or None


def failure_from_arguments(args: dict) -> FailureSpec | None:
    """The failure `args` ask to keep (at most one of `failure_fields()`); None: ask the person.

    Each kind reads its own argument (errMsg / errRegex: a string; crash: true or a signal's
    name; exitCode: a whole number; hang: true). An absent, null, false or "" one is not given.
    """
    given = [kind for kind in KINDS.values() if _given(args.get(kind.field))]
    if len(given) > 1:
        named = " and ".join(kind.field for kind in given)
        raise RunError(f"give one failure to keep ({', '.join(failure_fields())}), not {named}")
    if not given:
        return None
    kind = given[0]
    try:
        spec = FailureSpec(kind.name, kind.from_request(args[kind.field]))
    except ValueError as error:
        raise RunError(str(error)) from None
    try:
        spec.validate(kind.field)
    except UsageError as error:
        raise RunError(str(error)) from None
    return spec


def _given(value) -> bool:
    """Whether a failure argument is given: not absent, null, false or "" (0 is given: `exitCode: 0` is refused)."""
    return not (value is None or value is False or (isinstance(value, str) and value == ""))

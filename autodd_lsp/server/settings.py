"""Run settings: CLI defaults < the client's "autodd" configuration < command arguments."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from autodd_lsp.engine import MATCH_RULES, UsageError
from autodd_lsp.engine.flaky import MAX_REPEAT

OUTPUTS = ("beside", "inPlace")
SECTION = "autodd"


@dataclass(frozen=True)
class RunSettings:
    interpreter: str
    backend: str = "runner"
    timeout: float = 60.0
    jobs: int = 1
    output: str = "beside"
    match: str = "same"  # one of MATCH_RULES
    keep_imports: bool = False  # "keepImports": do not inline the program's own modules
    repeat: int = 0  # runs of the original that measure its failure rate; 0: automatic


def defaults() -> RunSettings:
    return RunSettings(interpreter=sys.executable)


def merge(base: RunSettings, *layers: dict | None) -> RunSettings:
    """`base` with the known keys of each layer applied in turn; a bad value raises UsageError."""
    values = dict(base.__dict__)
    for layer in layers:
        for key, value in (layer or {}).items():
            key = _KEYS.get(key, key)
            if key in values and value is not None and value != "":
                values[key] = value
    result = RunSettings(
        interpreter=_text("interpreter", values["interpreter"]),
        backend=_text("backend", values["backend"]),
        timeout=_number("timeout", values["timeout"], float),
        jobs=_number("jobs", values["jobs"], int),
        output=_choice("output", values["output"], OUTPUTS),
        match=_choice("match", values["match"], MATCH_RULES),
        keep_imports=_boolean("keepImports", values["keep_imports"]),
        repeat=_number("repeat", values["repeat"], int),
    )
    if not result.timeout > 0:
        raise UsageError(f"timeout must be a positive number of seconds, got {result.timeout:g}")
    if result.jobs < 1:
        raise UsageError(f"jobs must be at least 1, got {result.jobs}")
    if not (result.repeat == 0 or 2 <= result.repeat <= MAX_REPEAT):
        raise UsageError(f"repeat must be 0 (automatic) or a number of runs from 2 to {MAX_REPEAT}, got {result.repeat}")
    return result


_KEYS = {"keepImports": "keep_imports"}  # the client's names of settings whose field is spelled otherwise


def _boolean(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise UsageError(f"{name} must be true or false, got {value!r}")
    return value


def _text(name: str, value) -> str:
    if not isinstance(value, str):
        raise UsageError(f"{name} must be a string, got {value!r}")
    return value


def _number(name: str, value, kind):
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise UsageError(f"{name} must be a number, got {value!r}")
    try:
        number = kind(value)
    except ValueError:
        raise UsageError(f"{name} must be a number, got {value!r}") from None
    if kind is int and number != float(value):
        raise UsageError(f"{name} must be a whole number, got {value!r}")
    return number


def _choice(name: str, value, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise UsageError(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return value

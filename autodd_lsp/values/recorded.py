"""The records of one run of the original, and looking them up from a later text."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TypeVar

from autodd_lsp.syntax.metrics import TENSOR_VALUE
from autodd_lsp.syntax.origin import span_origin
from autodd_lsp.syntax.source import Source, Span

T = TypeVar("T")
VALUE_KINDS = ("value", "module", "class", "function", "instance", "mixed")
TENSOR_PREFIX = "torch.zeros("  # a tensor's literal: needs `torch` bound where it is written


def is_tensor_value(text: str) -> bool:
    """Text as a recorded tensor value is written: a value, not an expression to take apart."""
    return text.startswith(TENSOR_PREFIX) and TENSOR_VALUE.fullmatch(text) is not None


@dataclass(frozen=True)
class Recorded:
    kind: str  # one of VALUE_KINDS
    literal: str | None  # Python text of the value to offer (simple values only): the last one seen
    unique: bool = True  # the only value it had in the run


State = tuple[tuple[str, str], ...]  # an instance's attributes that are plain data: (name, Python text)


@dataclass(frozen=True)
class Call:
    """One call a story holds: the method's name, its arguments by parameter (Python text, None
    where it could not be written; whether it is the parameter's default), `*args`, `**kwargs`."""

    method: str
    named: tuple[tuple[str, str | None, bool], ...] = ()
    star: tuple[str | None, ...] = ()
    double: tuple[tuple[str, str | None], ...] = ()


@dataclass(frozen=True)
class Story:
    """The calls an instance was given from outside its own methods, in order (`execution/record_stories.py`).
    `class_name`: its class's, where the module binds the class by it (else None); `begun`: its
    `__init__` is the first call; `complete`: every call is here; `holder`: a module-level name
    that held it when the program ended."""

    class_name: str | None
    begun: bool
    complete: bool
    calls: tuple[Call, ...]
    holder: str | None = None


class RecordedValues:
    """Expression and parameter records, by their span in the original text; a method's
    instance state at its last call, by the span of its `self` parameter; and the run map:
    whether each statement ran, by the offset where it begins. `withheld`: the run's values
    are not offered (the program reports the failure itself), only its map: the mistake may lie
    in any input of the program's own check (`check_gemm(32, k_extent(32))`, where `k_extent`
    doubles), and a value written in its place would hide it."""

    def __init__(self, expressions: dict[Span, Recorded], parameters: dict[Span, Recorded],
                 statements: dict[int, bool] | None = None, withheld: bool = False,
                 states: dict[Span, State] | None = None, ending: tuple[Story, ...] = ()) -> None:
        self.expressions = expressions
        self.parameters = parameters
        self.statements = statements or {}
        self.withheld = withheld
        self.states = states or {}
        self.ending = ending  # the stories of the instances whose methods the run ended in, innermost first

    def map_only(self) -> RecordedValues:
        """The run map without the values (`withheld`), and the instances' stories: a story is
        the calls the program gave an object, each whole (`passes/replay.py`)."""
        return RecordedValues({}, {}, self.statements, withheld=True, ending=self.ending)

    @classmethod
    def load(cls, path: str, original: Source) -> RecordedValues:
        """Read `record_main.py`'s JSON; positions are ast's (1-based line, UTF-8 column)."""
        with open(path, encoding="utf-8") as handle:
            rows = json.load(handle)
        expressions: dict[Span, Recorded] = {}
        parameters: dict[Span, Recorded] = {}
        statements: dict[int, bool] = {}
        states: dict[Span, State] = {}
        ending: list[Story] = []
        for tag, line, col, end_line, end_col, kind, first, many, last in rows:
            if tag == "s":
                statements[original.offset(line, col)] = kind == "ran"
                continue
            if tag == "h":
                class_name, begun, complete, calls, holder = first
                told = tuple(Call(method, tuple((n, t, bool(d)) for n, t, d in named), tuple(star),
                                  tuple((k, t) for k, t in double)) for method, named, star, double, _ in calls)
                ending.append(Story(class_name, begun, complete, told, holder))
                continue
            span = (original.offset(line, col), original.offset(end_line, end_col))
            if tag == "t":
                states[span] = tuple((name, text) for name, text in first)
                continue
            literal = last if many else first
            offered = literal if kind == "value" or (literal or "").startswith(TENSOR_PREFIX) else None
            record = Recorded(kind if kind in VALUE_KINDS else "mixed", offered, not many)
            (parameters if tag == "p" else expressions)[span] = record
        return cls(expressions, parameters, statements, states=states, ending=tuple(ending))


class ValueLookup:
    """Records for spans of a later text, through that text's shadow (see syntax/origin.py)."""

    def __init__(self, values: RecordedValues, shadow: str | None) -> None:
        self.values = values
        self.shadow = shadow

    def expression(self, span: Span) -> Recorded | None:
        return self._find(self.values.expressions, span)

    def parameter(self, span: Span) -> Recorded | None:
        return self._find(self.values.parameters, span)

    def state(self, span: Span) -> State | None:
        """The plain-data attributes of the instance a method's `self` (at `span`) had at its last call."""
        return self._find(self.values.states, span)

    def ran(self, start: int) -> bool | None:
        """Whether the original's statement that begins at `start` of the later text ran (None: unknown)."""
        if self.shadow is None or not self.values.statements:
            return None
        origin = span_origin(self.shadow, start, start + 1)
        return None if origin is None else self.values.statements.get(origin[0])

    def _find(self, table: dict[Span, T], span: Span) -> T | None:
        if self.shadow is None or not table:
            return None
        origin = span_origin(self.shadow, *span)
        return None if origin is None else table.get(origin)

"""Plain data for freeze annotations (see the package docstring for positions)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, order=True)
class TextRange:
    start_line: int
    start_col: int
    end_line: int
    end_col: int

    def contains(self, other: TextRange) -> bool:
        return (self.start_line, self.start_col) <= (other.start_line, other.start_col) and (
            other.end_line,
            other.end_col,
        ) <= (self.end_line, self.end_col)


@dataclass(frozen=True)
class FrozenRegion:
    span: TextRange
    form: str  # "line" | "block" | "with" | "call" | "import"


@dataclass(frozen=True)
class Problem:
    line: int
    start_col: int
    end_col: int
    message: str
    severity: str = "error"  # "error" | "warning" | "information"


@dataclass(frozen=True)
class TextEdit:
    """Replace the text between (start_line, start_col) and (end_line, end_col) by new_text."""

    start_line: int
    start_col: int
    end_line: int
    end_col: int
    new_text: str


@dataclass
class FreezeInfo:
    regions: list[FrozenRegion] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # Set when the text does not parse; regions and problems are then empty.
    syntax_error: Problem | None = None

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def blocking(self) -> list[Problem]:
        """The problems that stop a run before anything runs (the CLI and the editor alike): every error
        and warning (a misplaced, mistyped or miscased annotation, or one that freezes nothing)."""
        return [p for p in self.problems if p.severity in ("error", "warning")]


def problems_text(problems: list[Problem]) -> str:
    """Every problem, on one line: `line 3, column 5: ...; line 9, column 1: ...`."""
    return "; ".join(f"line {p.line}, column {p.start_col + 1}: {p.message}" for p in problems)

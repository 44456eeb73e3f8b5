"""Errors the engine reports to a person, as one line each."""


class UsageError(Exception):
    """Bad input or options: the front end prints the message and exits non-zero."""


class NotReproducible(Exception):
    """The original program does not show the failure; `output_tail` says what it printed."""

    def __init__(self, message: str, output_tail: str = ""):
        super().__init__(message)
        self.output_tail = output_tail

"""The documentation site's MkDocs hook (mkdocs.yml `hooks:`): option tables generated from the code.

A page marks where a table goes with a block, whose inside is what a reader of the
Markdown file itself (on GitHub) sees, and which the built site replaces by the table:

    <!-- autodd:options -->
    (text for the raw Markdown: where the table comes from)
    <!-- /autodd:options -->

Tables (`TABLES`), each read from the code at build time, so that they cannot drift:

* `failure-kinds`: the kinds of failure to keep, from `autodd_lsp.kinds.KINDS` (each
  kind's flag, argparse metavar and help, and its `autodd.minimize` argument);
* `options`: every flag of the `autodd` command line, from the CLI's argparse parser
  (`autodd_lsp.cli.arguments.build_parser`, itself built from the kinds and from
  `autodd_lsp.engine.engine_options()`), plus `-- ARG...`, the engine option set after `--`;
* `settings`: the language server's settings, from `engine_options()` (EngineOption.setting),
  and the VS Code extension's own settings (`vscode-extension/package.json`) beyond those.

Only the public API is imported: `autodd_lsp.engine` (its `__all__`), `autodd_lsp.kinds`
and the CLI's parser. An unknown or unclosed marker fails the build. Nothing here
imports MkDocs: tests/test_docs.py calls the table functions directly.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import typing
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_JSON = ROOT / "vscode-extension" / "package.json"

# An engine option without a flag that the command line takes another way (cli/arguments.py):
# the program's arguments after `--` (split_program_args), a pytest test from SOURCE (FILE.py::test).
PROGRAM_ARGUMENTS = "args"
TAKEN_FROM_SOURCE = {"test": "`SOURCE` (`FILE.py::test_name`)"}
# What a field without help of its own means (the options model's comment says it).
NO_HELP = {"test": "a pytest test in the file to run instead of the file as a script: its node id inside "
                   "the file (`test_x`, `test_x[64-float16]`, `TestK::test_x`)"}

MARKER = re.compile(r"<!--\s*autodd:([\w-]+)\s*-->(.*?)<!--\s*/autodd:([\w-]+)\s*-->", re.S)
ANY_MARKER = re.compile(r"<!--\s*/?autodd:[\w-]*\s*-->")


def escape(text: str) -> str:
    """Plain help text as Markdown table-cell text: nothing in it is read as markup."""
    text = re.sub(r"([\\`*_\[\]|])", r"\\\1", text)
    return text.replace("<", "&lt;").replace("\n", " ")


def code(text: str) -> str:
    """`text` as inline code in a table cell."""
    return "`" + text.replace("|", "\\|") + "`"


def row(cells: Iterable[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def table(header: list[str], rows: list[list[str]]) -> str:
    return "\n".join([row(header), row("---" for _ in header), *(row(cells) for cells in rows)])


def shown_default(value: Any, interpreter: str) -> str:
    """A default as the table shows it ("" where there is none worth showing)."""
    if value is None or value is False or value == () or value == [] or value == "" or value is argparse.SUPPRESS:
        return ""
    if value == sys.executable:
        return interpreter  # a default_factory's value on this machine: say what it is instead
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return code(str(value))


# -- the failure kinds ------------------------------------------------------------------------------

def failure_kinds_table() -> str:
    """The kinds of failure to keep (`autodd_lsp.kinds.KINDS`), in the order a person is offered them."""
    from autodd_lsp.kinds import KINDS

    rows = []
    for kind in KINDS.values():
        arguments = kind.flag_arguments
        metavar = arguments.get("metavar")
        shown = kind.flag if not metavar else (
            f"{kind.flag} [{metavar}]" if arguments.get("nargs") == "?" else f"{kind.flag} {metavar}")
        rows.append([code(shown), code(kind.field), escape(str(arguments.get("help", "")))])
    return table(["command line", "editor (`autodd.minimize`)", "the failure kept"], rows)


# -- the command line -------------------------------------------------------------------------------

def _invocation(action: argparse.Action) -> str:
    """How a person writes one argparse argument: `SOURCE`, `-j N`, `--jobs N`, `--crash [SIGNAL]`."""
    if isinstance(action.metavar, str):
        metavar = action.metavar
    elif action.choices:
        metavar = "{" + ",".join(str(choice) for choice in action.choices) + "}"  # as argparse shows them
    else:
        metavar = action.dest.upper()
    if not action.option_strings:
        return code(metavar)
    if action.nargs == 0:
        return " ".join(code(flag) for flag in action.option_strings)
    value = f"[{metavar}]" if action.nargs == "?" else metavar
    return " ".join(code(f"{flag} {value}") for flag in action.option_strings)


def command_line_rows() -> list[tuple[list[str], list[str]]]:
    """(the flags a row names, its cells) for every argument of the CLI's parser, and `-- ARG...`."""
    from autodd_lsp.cli.arguments import build_parser
    from autodd_lsp.engine import engine_options
    from autodd_lsp.kinds import KINDS

    options = {option.field: option for option in engine_options()}
    kinds = {kind.flag: kind for kind in KINDS.values()}
    rows: list[tuple[list[str], list[str]]] = []
    for action in build_parser()._actions:
        option = options.get(action.dest)
        kind = next((kinds[flag] for flag in action.option_strings if flag in kinds), None)
        editor = code(option.setting) if option else code(kind.field) if kind else ""
        switch = action.nargs == 0  # a flag without a value: its default is only "not given"
        default = "" if kind or switch else shown_default(action.default, "the interpreter running `autodd`")
        help_text = escape(action.help or "") if action.help != argparse.SUPPRESS else ""
        rows.append((list(action.option_strings), [_invocation(action), editor, default, help_text]))
    for option in options.values():  # the engine options the parser has no flag for
        if option.flags:
            continue
        if option.field == PROGRAM_ARGUMENTS:
            rows.append((["--"], [code("-- ARG..."), code(option.setting), "", meaning(option)]))
        elif option.field in TAKEN_FROM_SOURCE:
            rows.append(([], [f"in {TAKEN_FROM_SOURCE[option.field]}", code(option.setting), "", meaning(option)]))
    return rows


def meaning(option: Any) -> str:
    """An engine option's help as a table cell (a negated boolean's says what `true` means)."""
    if not option.help:
        return NO_HELP.get(option.field, "")
    return escape(f"true: {option.help}" if option.negated else option.help)


def options_table() -> str:
    """Every argument of `autodd` (the CLI's argparse parser), its editor setting, default and help."""
    return table(["command line", "editor (setting or argument)", "default", "meaning"], [cells for _, cells in command_line_rows()])


# -- the editor's settings --------------------------------------------------------------------------

def _json_type(hint: Any) -> str:
    if typing.get_origin(hint) is tuple:
        return "array of strings"
    return {bool: "boolean", int: "integer", float: "number", str: "string"}.get(hint, getattr(hint, "__name__", str(hint)))


def settings_table() -> str:
    """The server's settings (`engine_options()`: each option's setting), then the VS Code
    extension's own settings (package.json's `contributes.configuration`) that the engine has not."""
    from autodd_lsp.engine import engine_options

    rows = []
    settings = set()
    for option in engine_options():
        settings.add(option.setting)
        default = (not option.default) if option.negated else option.default
        flag = code("-- ARG...") if option.field == PROGRAM_ARGUMENTS else \
            " ".join(code(flag) for flag in option.flags) or TAKEN_FROM_SOURCE.get(option.field, "")
        help_text = meaning(option)
        rows.append([code(option.setting), _json_type(option.type),
                     shown_default(default, "the interpreter running the server") or ("`false`" if default is False else ""),
                     flag, help_text])
    generated = table(["setting (`autodd.` in VS Code)", "type", "default", "command line", "meaning"], rows)
    extension = extension_settings(exclude=settings)
    if not extension:
        return generated
    own = table(["VS Code setting", "type", "default", "meaning"], [
        [code(key), str(spec.get("type", "")), shown_default(spec.get("default"), ""),
         escape(str(spec.get("markdownDescription") or spec.get("description") or ""))]
        for key, spec in extension.items()])
    return f"{generated}\n\nThe VS Code extension's own settings (`vscode-extension/package.json`):\n\n{own}"


def extension_settings(exclude: set[str]) -> dict[str, dict[str, Any]]:
    """package.json's `autodd.*` settings whose key (less `autodd.`) is not in `exclude`."""
    if not PACKAGE_JSON.is_file():
        return {}
    properties = json.loads(PACKAGE_JSON.read_text(encoding="utf-8"))["contributes"]["configuration"]["properties"]
    return {key: spec for key, spec in properties.items() if key.removeprefix("autodd.") not in exclude}


# -- the hook ---------------------------------------------------------------------------------------

TABLES: dict[str, Callable[[], str]] = {
    "failure-kinds": failure_kinds_table,
    "options": options_table,
    "settings": settings_table,
}


def replace_markers(markdown: str, where: str = "") -> str:
    """`markdown` with each marker block replaced by its generated table; ValueError for an unknown,
    mismatched or unclosed marker (MkDocs then stops the build)."""
    def generated(found: re.Match[str]) -> str:
        name, closing = found.group(1), found.group(3)
        if name != closing:
            raise ValueError(f"{where}: <!-- autodd:{name} --> is closed by <!-- /autodd:{closing} -->")
        if name not in TABLES:
            raise ValueError(f"{where}: unknown table <!-- autodd:{name} --> (known: {', '.join(TABLES)})")
        return "\n\n" + TABLES[name]() + "\n\n"

    replaced = MARKER.sub(generated, markdown)
    stray = ANY_MARKER.search(replaced)
    if stray:
        raise ValueError(f"{where}: {stray.group(0)} has no pair (a table is <!-- autodd:NAME --> ... <!-- /autodd:NAME -->)")
    return replaced


def on_page_markdown(markdown: str, page: Any = None, **_: Any) -> str:
    """MkDocs' event: a page's Markdown, before it is converted to HTML."""
    where = getattr(getattr(page, "file", None), "src_uri", "a page")
    return replace_markers(markdown, where)

"""The VS Code extension's settings and protocol against the engine's options model and kinds.

The server reads the `autodd` configuration through `server/request.ENGINE_OPTIONS`,
derived from `engine_options()`, whose defaults and rules are `ReduceOptions`';
package.json describes them for the settings editor, settings.ts sends them and
protocol.ts types the requests and replies: none may drift from the engine. Adding
an engine option the editor shows touches options.py, package.json and settings.ts
(and protocol.ts's RunOptions); these tests name whichever was left out.
"""

import json
import re
from dataclasses import fields
from pathlib import Path

from autodd_lsp.engine import BACKENDS, MATCH_RULES, ReduceOptions
from autodd_lsp.engine.asking.question import failure_question
from autodd_lsp.execution import RunResult
from autodd_lsp.server.request import (
    DEFAULT_OUTPUT,
    ENGINE_OPTIONS,
    OUTPUTS,
    failure_fields,
)
from autodd_lsp.server.sessions import suggestions_reply

EXTENSION = Path(__file__).resolve().parents[2] / "vscode-extension"
# Engine options that are per run, not settings: the test to reduce is chosen by a code action.
# (A program's arguments and input are settings, `autodd.args` and `autodd.stdin`, that
# "Minimize with arguments…" overrides for one run.)
NOT_SETTINGS = {"test"}


# A setting's JSON schema type, and its TypeScript type, for each type of engine option.
JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string", tuple[str, ...]: "array"}
TS_TYPES = {bool: "boolean", int: "number", float: "number", str: "string"}


def schema() -> dict:
    manifest = json.loads((EXTENSION / "package.json").read_text())
    return manifest["contributes"]["configuration"]["properties"]


def test_every_engine_option_is_a_setting_with_the_engines_default_and_choices():
    properties = schema()
    defaults = {f.name: f.default for f in fields(ReduceOptions) if f.init and not callable(f.default_factory)}
    for key, option in ENGINE_OPTIONS.items():
        if key in NOT_SETTINGS:
            continue
        setting = properties.get(f"autodd.{key}")
        assert setting is not None, f"package.json has no autodd.{key}"
        if option.field in defaults and defaults[option.field] is not None and key != "interpreter":
            default = defaults[option.field]
            default = list(default) if isinstance(default, tuple) else default  # JSON has lists, not tuples
            assert setting["default"] == (not default if option.negated else default), key
    assert properties["autodd.backend"]["enum"] == list(BACKENDS)
    assert properties["autodd.match"]["enum"] == list(MATCH_RULES)
    assert properties["autodd.output"]["enum"] == list(OUTPUTS) and properties["autodd.output"]["default"] == DEFAULT_OUTPUT
    jobs = properties["autodd.jobs"]
    assert jobs["default"] == ReduceOptions().jobs  # None resolves to 1 without GPUs


def test_the_extension_sends_exactly_the_run_settings_the_server_reads():
    text = (EXTENSION / "src" / "settings.ts").read_text()
    found = re.search(r"RUN_OPTION_KEYS = \[(.*?)\] as const", text, re.S)
    assert found is not None, "settings.ts has no RUN_OPTION_KEYS"
    keys = found.group(1)
    sent = set(re.findall(r"'(\w+)'", keys))
    read = (set(ENGINE_OPTIONS) - NOT_SETTINGS - {"interpreter"}) | {"output"}  # interpreter starts the server
    assert sent == read


def read_extension(name: str) -> str:
    return (EXTENSION / "src" / name).read_text()


def run_option_keys() -> set[str]:
    found = re.search(r"RUN_OPTION_KEYS = \[(.*?)\] as const", read_extension("settings.ts"), re.S)
    assert found is not None, "settings.ts has no RUN_OPTION_KEYS"
    return set(re.findall(r"'(\w+)'", found.group(1)))


def ts_union(name: str) -> list[str]:
    """The string literals of `export type NAME = 'a' | 'b';` in protocol.ts."""
    found = re.search(rf"export type {name} = ([^;]*);", read_extension("protocol.ts"))
    assert found is not None, f"protocol.ts has no type {name}"
    return re.findall(r"'([^']*)'", found.group(1))


def ts_interface(name: str) -> dict[str, str]:
    """The members of `export interface NAME {...}` in protocol.ts: name -> its type."""
    found = re.search(rf"export interface {name}\b[^{{]*\{{(.*?)\n\}}", read_extension("protocol.ts"), re.S)
    assert found is not None, f"protocol.ts has no interface {name}"
    members = re.findall(r"^\s*(\w+)\??: ([^;]+);", found.group(1), re.M)
    return dict(members)


def test_every_setting_has_the_type_of_its_engine_option():
    properties = schema()
    for key, option in ENGINE_OPTIONS.items():
        if key in NOT_SETTINGS:
            continue
        assert properties[f"autodd.{key}"]["type"] == JSON_TYPES[option.type], key
    settings = {key.removeprefix("autodd.") for key in properties} - {"trace.server"}
    assert settings == (set(ENGINE_OPTIONS) - NOT_SETTINGS) | {"output"}, "package.json has a setting the server ignores"


def test_the_protocols_choices_are_the_engines():
    assert ts_union("Backend") == list(BACKENDS)
    assert ts_union("MatchRule") == list(MATCH_RULES)
    assert ts_union("OutputMode") == list(OUTPUTS)


def test_the_protocols_run_options_are_the_settings_the_extension_sends():
    assert set(ts_interface("RunOptions")) == run_option_keys()


def test_the_protocols_minimize_arguments_are_the_servers():
    arguments = ts_interface("MinimizeArgs")
    known = set(ENGINE_OPTIONS) | set(failure_fields()) | {"uri", "output", "progressToken"}
    assert set(arguments) <= known, f"protocol.ts sends arguments the server does not read: {set(arguments) - known}"
    for key in ("test", "interpreter"):  # run options the extension sets itself, not from settings
        assert key in arguments, f"protocol.ts's MinimizeArgs has no {key}"
    for key, ts_type in arguments.items():
        option = ENGINE_OPTIONS.get(key)
        if option is not None:
            assert ts_type == TS_TYPES[option.type], key
    assert arguments.get("errMsg") == "string"


def test_the_protocols_suggestion_reply_is_what_the_server_answers():
    reply = suggestions_reply(failure_question(RunResult(b"", b"", -11), ReduceOptions()))
    assert set(reply) == {"suggestions", "failures", "outputTail", "returncode"}
    assert reply["failures"] == [{"title": "killed by SIGSEGV", "arguments": {"crash": "SIGSEGV"}}]
    members = ts_interface("SuggestErrMsgResult")
    assert set(members) <= set(reply) | {"error", "environment"}, f"protocol.ts expects {set(members) - set(reply)} in the reply"


def test_the_extension_names_the_setting_of_every_engine_flag():
    """format.ts's FLAG_SETTINGS turns the engine's `--repeat N` into `autodd.repeat` in messages:
    every engine option that is a setting has its flag there, mapped to that setting."""
    from autodd_lsp.engine.lifecycle.options import flag_of

    source = read_extension("format.ts")
    table = source[source.index("export const FLAG_SETTINGS"):]
    table = table[:table.index("};")]
    mapped = dict(re.findall(r"'(-[^']+)': '([^']+)'", table))
    properties = schema()
    for key, option in ENGINE_OPTIONS.items():
        if key in NOT_SETTINGS or not option.flags:  # args: `-- ARG...`, never named in a message
            continue
        for flag in flag_of(option.field).split("/"):
            assert mapped.get(flag) == f"autodd.{key}", (flag, key)
    assert all(setting in properties for setting in mapped.values())

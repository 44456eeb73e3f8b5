"""The VS Code extension's setting schema (package.json) against the engine's options model.

The server reads the `autodd` configuration through `server/request.ENGINE_OPTIONS`,
whose defaults and rules are `ReduceOptions`'; package.json may describe them for
the settings editor, but must not drift from them.
"""

import json
import re
from dataclasses import fields
from pathlib import Path

from autodd_lsp.engine import BACKENDS, MATCH_RULES, ReduceOptions
from autodd_lsp.server.request import DEFAULT_OUTPUT, ENGINE_OPTIONS, OUTPUTS

EXTENSION = Path(__file__).resolve().parents[2] / "vscode-extension"
# Engine options that are per run, not settings: the test to reduce is chosen by a code action.
NOT_SETTINGS = {"test"}


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
            assert setting["default"] == (not default if option.negate else default), key
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


def test_the_extension_names_the_setting_of_every_engine_flag():
    """format.ts's FLAG_SETTINGS turns the engine's `--repeat N` into `autodd.repeat` in messages:
    every engine option that is a setting has its flag there, mapped to that setting."""
    from autodd_lsp.engine.options import flag_of

    source = (EXTENSION / "src" / "format.ts").read_text()
    table = source[source.index("export const FLAG_SETTINGS"):]
    table = table[:table.index("};")]
    mapped = dict(re.findall(r"'(-[^']+)': '([^']+)'", table))
    properties = schema()
    for key, option in ENGINE_OPTIONS.items():
        if key in NOT_SETTINGS:
            continue
        for flag in flag_of(option.field).split("/"):
            assert mapped.get(flag) == f"autodd.{key}", (flag, key)
    assert all(setting in properties for setting in mapped.values())

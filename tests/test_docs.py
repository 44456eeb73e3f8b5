"""The documentation: the short README, the MkDocs site's pages and nav, and the option tables
that its hook (scripts/docs_hooks.py) generates from the code.

Pure: the hook's table functions are called here directly (nothing is built, no process is
started); scripts/test.sh builds the site itself with `mkdocs build --strict`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from autodd_lsp.cli.arguments import build_parser
from autodd_lsp.engine import engine_options
from autodd_lsp.kinds import KINDS
from scripts.docs_hooks import (
    TABLES,
    failure_kinds_table,
    options_table,
    replace_markers,
    settings_table,
)

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README_MOST_LINES = 250  # issue 39: a README a newcomer reads in five minutes


def pages() -> list[str]:
    return sorted(path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md"))


def nav_pages(nav: object) -> list[str]:
    """Every page mkdocs.yml's nav names, at any depth."""
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [page for item in nav for page in nav_pages(item)]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in nav_pages(value)]
    return []


def test_every_page_is_in_the_nav_and_every_nav_entry_is_a_page():
    yaml = pytest.importorskip("yaml")  # MkDocs' own dependency (the `docs` extra)
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["docs_dir"] == "docs"
    assert config.get("strict") is True
    listed = nav_pages(config["nav"])
    assert len(listed) == len(set(listed)), "a page is in mkdocs.yml's nav twice"
    assert sorted(listed) == pages()


def test_every_flag_of_the_command_line_is_in_the_generated_options_table():
    table = options_table()
    for action in build_parser()._actions:
        names = action.option_strings or [str(action.metavar)]
        for name in names:
            assert f"`{name}" in table, f"the options table does not list {name}"
    assert "`-- ARG...`" in table  # the program's arguments, after --
    for option in engine_options():
        assert f"`{option.setting}`" in table, f"the options table does not name the setting {option.setting}"


def test_the_kinds_and_settings_tables_list_every_kind_and_every_setting():
    kinds = failure_kinds_table()
    for kind in KINDS.values():
        assert f"`{kind.flag}" in kinds and f"`{kind.field}`" in kinds
    settings = settings_table()
    for option in engine_options():
        assert f"| `{option.setting}` |" in settings


def test_the_tables_are_markdown_tables_with_one_cell_per_column():
    for name, make in TABLES.items():
        for block in make().split("\n\n"):
            rows = [line for line in block.splitlines() if line.startswith("|")]
            if not rows:
                continue
            # a cell's own | is escaped (\|): count the unescaped ones
            widths = {len(re.findall(r"(?<!\\)\|", line)) for line in rows}
            assert len(widths) == 1, f"table {name}: rows of different widths"


def test_every_marker_on_a_page_is_a_known_table_and_is_replaced():
    used = set()
    for page in pages():
        text = (DOCS / page).read_text(encoding="utf-8")
        used |= set(re.findall(r"<!--\s*autodd:([\w-]+)\s*-->", text))
        assert not re.search(r"<!--\s*/?autodd:", replace_markers(text, page)), page
    assert used == set(TABLES), "a generated table is on no page"
    with pytest.raises(ValueError, match="unknown table"):
        replace_markers("<!-- autodd:nope -->\n<!-- /autodd:nope -->")
    with pytest.raises(ValueError, match="has no pair"):
        replace_markers("<!-- autodd:options -->")


def test_the_command_line_page_speaks_of_every_option_in_words_too():
    page = (DOCS / "command-line.md").read_text(encoding="utf-8").split("<!-- /autodd:options -->")[1]
    for action in build_parser()._actions:
        if action.option_strings and not {"--help", "--version"} & set(action.option_strings):
            assert any(f"`{flag}" in page for flag in action.option_strings), \
                f"docs/command-line.md says nothing of {'/'.join(action.option_strings)}"


def test_the_readme_is_short_and_its_links_lead_somewhere():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) < README_MOST_LINES
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    assert links, "the README links to no page"
    for link in links:
        if "://" not in link:
            assert (ROOT / link).exists(), f"README.md links to {link}, which is not there"
    for page in pages():
        assert f"(docs/{page})" in readme, f"README.md does not link to docs/{page}"

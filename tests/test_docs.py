"""The documents against the code: the README's two commands (CI runs the second), every group
setting in the players' guide, every environment variable in ``.env.example`` and the operators'
guide, and the links between the documents."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from bot.core.rooms import DEFAULT_GROUP_SETTINGS

ROOT = Path(__file__).parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
INSTALL_AND_START = "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/ddz-bot"
INSTALL_AND_TEST = (
    "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest"
)
#: How ``bot/core/settings.py`` reads a variable: ``values.get("NAME"`` or ``_seconds(values,
#: "NAME"``.
_READ_RE = re.compile(r'values(?:\.get\(|, )"([A-Z][A-Z0-9_]+)"')
_LINK_RE = re.compile(r"\]\(([^)\s]+)\)")


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _section(text: str, heading: str) -> str:
    """The lines of ``text`` under the heading line ``heading`` up to the next heading of the
    same or a higher level."""
    level = heading.split(" ")[0]
    start = text.index(f"\n{heading}\n")
    ends = [m.start() for m in re.finditer(r"\n(#+) ", text[start + 1:])
            if len(m.group(1)) <= len(level)]
    return text[start: start + 1 + ends[0]] if ends else text[start:]


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation and symbols dropped, spaces to
    hyphens (letters of any script, digits, ``-`` and ``_`` kept)."""
    kept = "".join(c for c in heading.strip().lower()
                   if c in " -_" or unicodedata.category(c)[0] in "LNM")
    return kept.replace(" ", "-")


def _anchors(text: str) -> set[str]:
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return {_slug(m.group(1)) for m in re.finditer(r"^#+ (.+)$", text, flags=re.M)}


def test_the_readme_is_short_and_has_the_two_commands():
    readme = _text(README)
    assert len(readme.encode()) <= 12 * 1024
    blocks = re.findall(r"```sh\n(.*?)\n```", readme, flags=re.S)
    assert blocks == [INSTALL_AND_START, INSTALL_AND_TEST]


def test_ci_runs_exactly_the_readmes_test_command():
    lines = _text(ROOT / ".ci" / "run").splitlines()
    assert INSTALL_AND_TEST.replace("-e '.[test]'", "-q -e '.[test]'") in lines


def test_every_group_setting_has_a_row_in_the_settings_table():
    table = _section(_text(DOCS / "playing.md"), "## Group settings (`/settings`)")
    rows = [line for line in table.splitlines() if line.startswith("| ")]
    named = {key for row in rows for key in re.findall(r"\(`([a-z_]+)`[),]", row.split(" | ")[0])}
    assert named == set(DEFAULT_GROUP_SETTINGS)


def test_every_environment_variable_is_in_env_example_and_the_operators_guide():
    names = set(_READ_RE.findall(_text(ROOT / "bot" / "core" / "settings.py")))
    assert len(names) == 25 and {"BOT_TOKEN", "WORKER_NAME", "TURN_NOTICE_DELAY"} <= names
    example = _text(ROOT / ".env.example")
    table = _section(_text(DOCS / "operating.md"), "## Settings")
    for name in sorted(names):
        assert re.search(rf"^{name}=", example, flags=re.M), name
        assert f"`{name}`" in table, name
    assert set(re.findall(r"^([A-Z][A-Z0-9_]+)=", example, flags=re.M)) == names


@pytest.mark.parametrize("path", [README, *sorted(DOCS.glob("*.md"))], ids=lambda p: p.name)
def test_links_between_the_documents_find_their_heading(path: Path):
    for target in _LINK_RE.findall(_text(path)):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        if not linked.exists() or linked.suffix != ".md" or not anchor:
            continue  # a picture, a folder, a document without a heading named
        assert anchor in _anchors(_text(linked)), f"{path.name}: {target}"

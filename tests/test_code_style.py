"""The code speaks of itself: no source file of ``engine/``, ``images/`` or ``bot/`` points at a
tracker issue by number ("issue 16", "Issue 14, item 8", "issues 3 and 5"). A docstring or
comment says what the code guarantees and why, and cites ``RULES.md §N`` for a rule; the history
of a change is in git."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
PACKAGES = ("engine", "images", "bot")
#: "issue 16", "Issue #16", "issues 3 and 5", also wrapped over two lines ("issue\n    10").
ISSUE_RE = re.compile(r"\bissues?\s*#?\d+", re.IGNORECASE)


def _issue_mentions(text: str) -> list[tuple[int, str]]:
    """Each mention's 1-based line and the line itself, stripped."""
    lines = text.splitlines()
    found = []
    for match in ISSUE_RE.finditer(text):
        number = text.count("\n", 0, match.start()) + 1
        found.append((number, lines[number - 1].strip()))
    return found


@pytest.mark.parametrize("text", [
    "(issue 16)", "Issue 14, item 8", "QA defect D3 of issue 16", "(issues 3 and 5)",
    "issue #9", "(QA of issue\n    10)",
])
def test_the_pattern_finds_issue_numbers(text: str) -> None:
    assert _issue_mentions(text)


@pytest.mark.parametrize("text", ["an issue with the hand", "issued 3 times", "tissue 4"])
def test_the_pattern_leaves_other_words(text: str) -> None:
    assert _issue_mentions(text) == []


def test_no_issue_numbers_in_the_code() -> None:
    sources = [path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))]
    assert len(sources) > 50  # the packages were found
    mentions = [
        f"{path.relative_to(ROOT)}:{line}: {text}"
        for path in sources
        for line, text in _issue_mentions(path.read_text(encoding="utf-8"))
    ]
    assert mentions == [], "say what the code does, or cite RULES.md §N:\n" + "\n".join(mentions)

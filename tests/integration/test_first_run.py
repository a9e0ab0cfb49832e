"""The README's first-run promise: two set-up commands that work as written."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DEMO = "python3 -m pip install '.[cli]' && semreport demo --out demo-out"
TESTS = "python3 -m pip install --upgrade nox uv && python3 -m nox -s tests"


def _setup_section() -> str:
    match = re.search(r"^## Set up\n(.*?)(?=^## )", README, re.S | re.M)
    assert match, "the README has a 'Set up' section"
    return match.group(1)


class TestReadmeCommands:
    """Exactly two set-up commands: the demo on the embedded default, and the tests."""

    def test_exactly_two_commands(self) -> None:
        blocks = re.findall(r"```sh\n(.*?)\n```", _setup_section(), re.S)
        assert blocks == [DEMO, TESTS]

    def test_the_demo_command_is_installable(self) -> None:
        project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
        extras = project["project"]["optional-dependencies"]
        assert any(r.startswith("click") for r in extras["cli"])
        assert any(r.startswith("rich") for r in extras["cli"])
        assert "semreport[pdf]" in extras["cli"]  # the demo exports a PDF
        assert project["project"]["scripts"]["semreport"] == "semreport.cli:main"

    def test_docs_links_exist(self) -> None:
        for target in re.findall(r"\]\(((?:docs/)[^)#]+)\)", README):
            assert (ROOT / target).exists(), target

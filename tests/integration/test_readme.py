"""The README's usage example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


class TestReadme:
    """Code blocks in the README are real."""

    def test_python_examples_run(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
        assert blocks, "the README shows a Python example"
        monkeypatch.chdir(tmp_path)
        for block in blocks:
            exec(compile(block, str(README), "exec"), {"__name__": "__readme__"})

    def test_test_command_is_documented(self) -> None:
        text = README.read_text(encoding="utf-8")
        assert "python3 -m pip install --upgrade nox uv && python3 -m nox -s tests" in text
        ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
        assert "python3 -m pip install --upgrade nox uv && python3 -m nox -s tests" in ci

"""Write the sample project's package data from its hand-written source.

Run ``python -m semreport.sample._generate`` after editing ``_decisions.py`` or
``_sessions.py``; a test checks that the committed files match this output.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from semreport.sample._decisions import decisions
from semreport.sample._sessions import sessions

__all__ = ["render", "write"]

DATA = Path(__file__).with_name("data")


def render() -> dict[str, str]:
    """Return every data file's path (relative to ``data/``) and its exact text."""
    files = {
        "decisions.jsonl": "".join(
            json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n" for record in decisions()
        )
    }
    for session in sessions():
        text = json.dumps(session, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
        files[f"sessions/{session['id']}.json"] = text
    return files


def write(target: Path = DATA) -> list[Path]:
    """Write the data files under ``target`` and return their paths."""
    written = []
    for name, text in render().items():
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":  # pragma: no cover - a maintenance script
    for path in write(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA):
        print(path)

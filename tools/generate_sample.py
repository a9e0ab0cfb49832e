"""Write the sample project's package data from its hand-written source.

The sample project (*Lindenhof*) ships in the package as data only:
``src/semreport/sample/data/decisions.jsonl`` and ``data/sessions/*.json``.
Its source is the two modules beside this script, ``lindenhof_decisions.py``
and ``lindenhof_sessions.py``; the project and session ids come from
:mod:`semreport.sample`, where they are defined once.

To regenerate the data after editing the source, from the repository root
with semreport installed (``pip install -e .``)::

    python tools/generate_sample.py            # rewrites src/semreport/sample/data
    python tools/generate_sample.py OUT_DIR    # writes the files under OUT_DIR

The output is deterministic; ``tests/integration/test_sample_generator.py``
checks that the committed files are byte-identical to it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lindenhof_decisions import decisions
from lindenhof_sessions import sessions

__all__ = ["DATA", "render", "write"]

DATA = Path(__file__).resolve().parents[1] / "src" / "semreport" / "sample" / "data"
"""The package data directory this script rewrites by default."""


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
        path.write_text(text, encoding="utf-8", newline="\n")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA):
        print(path)

"""The sample project's generator under tools/ reproduces the shipped data byte for byte."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from semreport import sample

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "generate_sample.py"
DATA = Path(sample.__file__).with_name("data")


class TestGenerator:
    """``python tools/generate_sample.py OUT`` writes exactly the package data."""

    def test_output_is_byte_identical_to_the_package_data(self, tmp_path: Path) -> None:
        run = subprocess.run(
            [sys.executable, str(SCRIPT), str(tmp_path)],
            capture_output=True,
            text=True,
            check=False,
            cwd=tmp_path,
        )
        assert run.returncode == 0, run.stderr
        written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
        shipped = sorted(p.relative_to(DATA) for p in DATA.rglob("*") if p.is_file())
        assert written == shipped
        for name in shipped:
            assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes(), name
        assert len(run.stdout.splitlines()) == len(shipped)

    def test_ids_come_from_the_package(self) -> None:
        # The project and session ids are defined once, in semreport.sample.
        for name in ("lindenhof_decisions.py", "lindenhof_sessions.py", "generate_sample.py"):
            text = (SCRIPT.parent / name).read_text(encoding="utf-8")
            assert f'"{sample.PROJECT_ID}"' not in text, name
            for session_id in sample.SESSION_IDS:
                assert f'"{session_id}"' not in text, name

"""Helpers for the benchmark tests: a tiny CISI-like collection, in memory or as files."""

from __future__ import annotations

from pathlib import Path

import pytest

TEXTS = [
    ("timber floor", "cross laminated timber floor slabs span far"),
    ("timber wall", "timber walls and timber floor slabs burn slowly"),
    ("steel beam", "steel beams carry the floor slabs over long spans"),
    ("concrete core", "a concrete core stiffens the tower against wind"),
    ("glass facade", "triple glazing in the facade keeps the heat in"),
    ("timber fire", "charring protects timber in a fire for ninety minutes"),
]
"""Six documents as (title, text)."""

RELEVANT = "1 1 0 0\n1 2 0 0\n1 6 0 0\n2 4 0 0\n"
"""Query 1 has three relevant documents (an exemplar for ``similar``), query 2 one."""


def only_cisi_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, queries: tuple[str, str]
) -> None:
    """Write :data:`TEXTS` as CISI's files (each citing the next) and hide MED and ADI."""
    documents = "".join(
        f".I {i + 1}\n.T\n{title}\n.W\n{text}\n.X\n{(i + 1) % 6 + 1}\t1\t{i + 1}\n"
        for i, (title, text) in enumerate(TEXTS)
    )
    asked = "".join(f".I {i + 1}\n.W\n{text}\n" for i, text in enumerate(queries))
    cisi = tmp_path / "cisi"
    cisi.mkdir()
    (cisi / "CISI.ALL").write_text(documents, encoding="latin-1")
    (cisi / "CISI.QRY").write_text(asked, encoding="latin-1")
    (cisi / "CISI.REL").write_text(RELEVANT, encoding="latin-1")
    monkeypatch.setenv("SEMREPORT_CISI_DIR", str(cisi))
    monkeypatch.setenv("SEMREPORT_MED_DIR", str(tmp_path / "absent"))
    monkeypatch.setenv("SEMREPORT_ADI_DIR", str(tmp_path / "absent"))

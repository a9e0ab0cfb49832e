"""Small deterministic sample records for tests, benchmarks and examples.

- :func:`sample_decisions`: a few decisions of a building project, in wire
  form (plain dicts a test may change before recording them).
- :func:`sample_session`: a legacy session of any length that exercises the
  exports (Unicode, tool calls, decision references, an artefact).
- :func:`preview_session`: that session with one awkward turn (a very long
  word, control characters, an emoji, a long tool result), which
  ``python -m semreport.testing.samples OUT.pdf`` writes as a PDF for a visual
  check (the nox session ``pdfpreview`` renders it to PNG).

The realistic sample project (*Lindenhof*) is :mod:`semreport.sample`; seeded
projects of any size are :func:`semreport.testing.synthetic_decisions`.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final

from semreport.domain import LegacySession
from semreport.wire import from_wire

__all__ = [
    "SAMPLE_DECISION_TITLES",
    "UNICODE_SAMPLES",
    "preview_session",
    "sample_decisions",
    "sample_session",
    "write_preview",
]

UNICODE_SAMPLES: Final[tuple[str, ...]] = (
    "Latin-1: café, Straße, niño, Søren, Ærø, naïve, ½ \u00d7 ¾ ÷ 2",
    "Latin Extended: Łódź, Kraków, Dvořák, Őrség, Șerban, Žižek",
    "Greek: λόγος, Αθήνα, μέτρο, Ω, Δp",
    "Symbols: 12 m², CO₂ ≤ 350 kg, U ≥ 0.18 W/m²K, 20 °C ± 2, 5 µm, 1 200 €, A → B",
    "CJK names: 田中太郎, 王小明, 佐藤 花子, 東京, 김민준",
)
"""Lines that must all render in the PDF (and survive every export)."""

_START: Final = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

_CONTENT: Final[tuple[str, ...]] = (
    "Can we use cross-laminated timber for the third-floor slab? The span is 6.4 m and "
    "the fire rating must be REI 60.",
    "Checked the regulation: REI 60 is reachable with a 160 mm CLT panel and one layer of "
    "15 mm gypsum board. The embodied carbon drops from 41 to 18 kg CO₂e/m² (≈ \u221256 %).",
    "Agreed. Please compare the cost per m² with the concrete option at 20 °C ± 2 site "
    "conditions, and keep the acoustic target L'nT,w ≤ 53 dB.",
)


def sample_session(
    turns: int = 12,
    *,
    session_id: str = "s-sample",
    project_id: str = "p-sample",
    unicode_every: int = 4,
    extra_turns: Sequence[Mapping[str, Any]] = (),
) -> LegacySession:
    """Build a deterministic session of ``turns`` turns (plus ``extra_turns``, in wire form).

    Every ``unicode_every``-th turn carries one of :data:`UNICODE_SAMPLES`;
    every third turn is a tool turn with a call, its arguments and a result;
    every fifth references a decision; one artefact is produced by turn 1.
    """
    built: list[dict[str, Any]] = []
    for index in range(turns):
        kind = index % 3
        content = _CONTENT[kind]
        if unicode_every and index % unicode_every == 0:
            content = f"{content} {UNICODE_SAMPLES[(index // unicode_every) % 5]}"
        calls: list[dict[str, Any]] = []
        if kind == 2:
            calls.append(
                {
                    "name": "carbon.estimate",
                    "arguments": {"element": f"slab-{index}", "material": "CLT", "area_m2": 86.5},
                    "result": {
                        "co2e_kg": 1557.0,
                        "unit": "kg CO₂e",
                        "breakdown": {"panel": 1210.5, "board": 346.5},
                        "sources": ["EPD 2024-118", "ICE v3.0"],
                    },
                }
            )
        built.append(
            {
                "index": index,
                "at": _START + timedelta(seconds=37 * index),
                "role": ("user", "agent", "tool")[kind],
                "author": ("u-ana", "a-wang", "t-calc")[kind],
                "content": content,
                "tool_calls": calls,
                "decision_refs": ["d-clt-slab"] if index % 5 == 0 else [],
            }
        )
    built.extend(dict(turn) for turn in extra_turns)
    artefacts = [
        {
            "name": "slab-comparison.csv",
            "media_type": "text/csv",
            "sha256": "3f" * 32,
            "uri": f"file:///projects/{project_id}/slab-comparison.csv",
            "turn_index": 1,
        }
    ]
    last = max([_START, *(turn["at"] for turn in built)])
    data = {
        "id": session_id,
        "project_id": project_id,
        "title": "Slab options — timber vs concrete (東京 office)",
        "started_at": _START,
        "ended_at": last + timedelta(seconds=60),
        "participants": [
            {"id": "u-ana", "name": "Ana Łukasiewicz", "role": "user"},
            {"id": "a-wang", "name": "王小明 (design agent)", "role": "agent"},
            {"id": "t-calc", "name": "carbon calculator", "role": "tool"},
        ],
        "turns": built,
        "artefacts": artefacts if turns > 1 else [],
    }
    return from_wire(data, LegacySession)


def preview_session() -> LegacySession:
    """The 25-turn sample session plus one awkward tool turn, as the PDF preview shows it.

    The extra turn holds a 300-character word, a tab, a BEL control character,
    an emoji outside the shipped fonts, a 120-row tool result and a reference
    to a decision the titles do not know (``d-unknown``).
    """
    long_output = " ".join(f"row-{n}: {n * 1.5:.1f} m² CO₂" for n in range(120))
    extra = {
        "index": 24,
        "at": _START + timedelta(seconds=37 * 24 + 30),
        "role": "tool",
        "author": "t-calc",
        "content": "A very long line without spaces: " + "x" * 300 + "\tafter a tab\x07bell 😀",
        "tool_calls": [{"name": "table.dump", "arguments": {"rows": 120}, "result": long_output}],
        "decision_refs": ["d-clt-slab", "d-unknown"],
    }
    return sample_session(24, extra_turns=[extra])


SAMPLE_DECISION_TITLES: Final[Mapping[str, str]] = {
    "d-clt-slab": "Use 160 mm CLT for the level-3 slab"
}
"""The title of the decision :func:`sample_session` references, for the exports."""


def write_preview(out: Path) -> Path:
    """Write :func:`preview_session`'s PDF to ``out`` (needs the ``pdf`` extra)."""
    from semreport.exports._pdf import render_pdf  # noqa: PLC0415 - needs the pdf extra

    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(render_pdf(preview_session(), SAMPLE_DECISION_TITLES))
    return out


_TOPICS: Final = (
    ("regulation", "Fire rated doors on the stair core", "Use EI30 doors", "fire", 1200.0),
    ("material", "Cross-laminated timber floor slabs", "Use CLT 200 mm slabs", "timber", 95.5),
    ("cost", "Value-engineer the facade", "Replace stone with brick slips", "facade", 310.0),
    (
        "lifecycle",
        "Heat pump for space heating",
        "Install an air-source heat pump",
        "energy",
        18000,
    ),
    ("regulation", "Accessible ramps at entrances", "Build 1:20 ramps", "access", 4500.0),
    ("material", "Recycled steel for the frame", "Specify 90% recycled steel", "steel", 870.0),
)


def sample_decisions(project_id: str = "p-1", count: int = 6) -> list[dict[str, Any]]:
    """Wire-form decisions of a small building project, to seed a service in tests.

    Decision ``d-1`` is proposed and every later one relates to it; every
    decision carries ``cost_eur`` and ``co2e_kg``. Past six the topics repeat
    with a number in the title.
    """
    decisions = []
    for i in range(count):
        domain, title, statement, tag, cost = _TOPICS[i % len(_TOPICS)]
        decisions.append(
            {
                "id": f"d-{i + 1}",
                "project_id": project_id,
                "title": f"{title} ({i + 1})" if i >= len(_TOPICS) else title,
                "statement": f"{statement}.",
                "rationale": f"Chosen for {tag}, cost and CO₂ (≤ 30 kg/m²).",
                "agent": f"{domain}-agent",
                "domain": domain,
                "status": "accepted" if i % 3 else "proposed",
                "tags": [tag, domain],
                "attributes": {"cost_eur": cost + i, "co2e_kg": 10.0 * (i + 1)},
                "elements": [f"el-{i % 3}"],
                "links": [{"kind": "relates_to", "target": "d-1"}] if i else [],
            }
        )
    return decisions


if __name__ == "__main__":  # pragma: no cover - run in a subprocess by the tests and nox
    write_preview(Path(sys.argv[1] if len(sys.argv) > 1 else "build/pdfpreview/sample-session.pdf"))

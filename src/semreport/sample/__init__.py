"""A realistic sample project, shipped as package data: *Lindenhof*.

Lindenhof is a six-storey timber-hybrid block of 42 flats in Vienna
(3,960 m² gross floor area): a concrete basement, ground floor and cores with
cross-laminated timber above. Its Decision Memory holds 97 decisions across
regulation, material, cost and lifecycle made by six agents, with
supersession chains, numeric attributes (``cost_eur``, ``co2e_kg``,
``fire_resistance_min``, ``u_value_w_m2k``...) and evidence citing regulation
clauses, catalogue items and cost lines. Two legacy sessions (a fire strategy
workshop and a façade review) hold the agents' transcripts with tool calls.

The files are in the wire form: ``decisions.jsonl`` (one decision per line)
and ``sessions/*.json`` (one session per file), which is exactly what
``semreport ingest`` reads. The package holds only these files; the
hand-written source they are generated from lives in the repository's
``tools/`` directory (``python tools/generate_sample.py``).

Example:
    >>> import semreport
    >>> from semreport import sample
    >>> with semreport.open("memory://") as sr:
    ...     stored = sample.load_into(sr)
    ...     stored.decisions, stored.sessions
    (97, 2)
"""

from __future__ import annotations

import json
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import TYPE_CHECKING, Final

import attrs

from semreport.domain import Decision, LegacySession
from semreport.wire import from_wire

if TYPE_CHECKING:
    from semreport.service import SemReport

__all__ = [
    "PROJECT_ID",
    "SESSION_IDS",
    "Loaded",
    "data_files",
    "decisions",
    "load_into",
    "sessions",
]

PROJECT_ID: Final = "lindenhof"
"""The sample project's id."""

SESSION_IDS: Final = ("lh-fire-workshop-2025-03", "lh-facade-review-2025-04")
"""The ids of the sample project's legacy sessions."""


def data_files() -> Traversable:
    """Return the directory that holds ``decisions.jsonl`` and ``sessions/``.

    Use :func:`importlib.resources.as_file` to get a real path from it.
    """
    return files(__name__) / "data"


def decisions() -> list[Decision]:
    """Return the sample project's decisions, unrecorded, in recording order."""
    text = (data_files() / "decisions.jsonl").read_text(encoding="utf-8")
    return [
        from_wire(json.loads(line), Decision, path=f"decisions.jsonl:{number}")
        for number, line in enumerate(text.splitlines(), start=1)
        if line.strip()
    ]


def sessions() -> list[LegacySession]:
    """Return the sample project's legacy sessions."""
    folder = data_files() / "sessions"
    return [
        from_wire(
            json.loads((folder / f"{session_id}.json").read_text(encoding="utf-8")),
            LegacySession,
            path=f"{session_id}.json",
        )
        for session_id in SESSION_IDS
    ]


@attrs.frozen
class Loaded:
    """What :func:`load_into` stored.

    Attributes:
        project_id: The sample project's id.
        decisions: How many decisions were recorded.
        sessions: How many legacy sessions were recorded.
    """

    project_id: str
    decisions: int
    sessions: int


def load_into(sr: SemReport) -> Loaded:
    """Record the sample project's decisions and sessions through the facade.

    Raises:
        DecisionAlreadyRecorded: the storage already holds the sample project.
    """
    stored = sr.record(decisions())
    recorded = sr.record_sessions(sessions())
    return Loaded(PROJECT_ID, len(stored), len(recorded))

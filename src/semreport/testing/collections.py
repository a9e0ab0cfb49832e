"""Load public information-retrieval test collections (CISI, MED, ADI) as projects.

The three are classic collections in the SMART format: a documents file
(``.I id`` then ``.T`` title, ``.A`` authors, ``.W`` text, ``.X``
cross-references), a queries file and a judgements file. Each document becomes
a decision with its title as ``title`` and its text as ``rationale``; the
numeric id is kept as the decision id so that the judgements line up. The
statement, which a decision requires, is a neutral ``"-"`` that adds no term,
and so is the title of a document without one (MED has none).

- ``cisi``: 1,460 library-science abstracts, 112 queries, 76 of them judged
  (``CISI.ALL``, ``CISI.QRY``, ``CISI.REL``);
- ``med``: 1,033 MEDLINE abstracts, 30 queries, all judged (``MED.ALL``,
  ``MED.QRY``, ``MED.REL``);
- ``adi``: 82 abstracts on documentation, 35 queries, all judged
  (``ADI.ALL``, ``ADI.QRY``, ``ADI.REL``).

Each collection is found by ``$SEMREPORT_<NAME>_DIR`` (``SEMREPORT_CISI_DIR``,
``SEMREPORT_MED_DIR``, ``SEMREPORT_ADI_DIR``), else as ``../shared/data/<name>``
from the current directory or any directory above it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import attrs

from semreport.domain import Decision, Link, LinkKind

__all__ = [
    "COLLECTIONS",
    "RetrievalCollection",
    "find_collection",
    "load_collection",
    "ndcg_at",
    "recall_at",
]


@attrs.frozen
class _Layout:
    prefix: str  # file names are <prefix>.ALL, <prefix>.QRY, <prefix>.REL
    doc_column: int  # the column of a judgement line that holds the document id


_LAYOUTS: Final = {
    "adi": _Layout("ADI", 1),
    "cisi": _Layout("CISI", 1),
    "med": _Layout("MED", 2),
}

COLLECTIONS: Final = tuple(sorted(_LAYOUTS))
"""The names of the collections this module reads: ``("adi", "cisi", "med")``."""


@attrs.frozen
class RetrievalCollection:
    """A collection as decisions, queries and judgements.

    Attributes:
        name: The collection's name (``"cisi"``, ``"med"`` or ``"adi"``).
        decisions: One decision per document, in file order.
        queries: Query id -> query text (title and text of the query).
        relevant: Query id -> the ids of its relevant documents, in id order
            (only the queries with at least one judgement).
    """

    name: str
    decisions: tuple[Decision, ...]
    queries: dict[str, str]
    relevant: dict[str, tuple[str, ...]]

    def text(self, decision_id: str) -> str:
        """The document's full text (title and abstract; a placeholder title adds nothing)."""
        for decision in self.decisions:
            if decision.id == decision_id:
                return f"{decision.title}\n{decision.rationale}"
        raise KeyError(decision_id)

    def judged(self) -> list[str]:
        """The ids of the queries with judgements, in query order."""
        return [q for q in self.queries if q in self.relevant]


def _layout(name: str) -> _Layout:
    try:
        return _LAYOUTS[name]
    except KeyError:
        raise ValueError(f"unknown collection {name!r}; known: {', '.join(COLLECTIONS)}") from None


def find_collection(name: str, start: Path | None = None) -> Path | None:
    """Locate a collection's directory, or ``None`` when it is not there.

    Args:
        name: ``"cisi"``, ``"med"`` or ``"adi"``.
        start: Where to start looking upwards for ``../shared/data/<name>``
            (default: the current directory). ``$SEMREPORT_<NAME>_DIR``, when
            set, is the only place looked at.

    Raises:
        ValueError: ``name`` is not one of :data:`COLLECTIONS`.
    """
    documents = f"{_layout(name).prefix}.ALL"
    env = os.environ.get(f"SEMREPORT_{name.upper()}_DIR")
    if env:
        return Path(env) if (Path(env) / documents).is_file() else None
    here = (start or Path.cwd()).resolve()
    for base in (here, *here.parents):
        candidate = base / ".." / "shared" / "data" / name
        if (candidate / documents).is_file():
            return candidate.resolve()
    return None


def _records(path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """The ``(id, {field letter: text})`` records of a SMART file."""
    current: str | None = None
    fields: dict[str, list[str]] = {}
    field = ""
    for line in path.read_text(encoding="latin-1").splitlines():
        if line.startswith(".I "):
            if current is not None:
                yield current, {k: "\n".join(v).strip() for k, v in fields.items()}
            current, fields, field = line[3:].strip(), {}, ""
        elif len(line) >= 2 and line[0] == "." and line[1] in "TAWXBKNC" and not line[2:].strip():
            field = line[1]
            fields.setdefault(field, [])
        elif field:
            fields[field].append(line)
    if current is not None:
        yield current, {k: "\n".join(v).strip() for k, v in fields.items()}


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _cross_references(doc_id: str, lines: str) -> list[str]:
    """The other documents a ``.X`` list names, first mention first.

    Each line is a triple ``other kind this``; the list names the document
    itself too, which is no link.
    """
    targets: list[str] = []
    for line in lines.splitlines():
        parts = line.split()
        if parts and parts[0] != doc_id and parts[0] not in targets:
            targets.append(parts[0])
    return targets


def load_collection(
    name: str, directory: Path, *, project_id: str | None = None, links: bool = False
) -> RetrievalCollection:
    """Read a collection from ``directory``.

    Args:
        name: ``"cisi"``, ``"med"`` or ``"adi"``; it names the files read.
        directory: Holds ``<NAME>.ALL``, ``<NAME>.QRY`` and ``<NAME>.REL``.
        project_id: The project the decisions belong to (default: ``name``).
        links: Turn the documents' cross-references (``.X``, CISI's direct
            citations) into ``relates_to`` links.

    Raises:
        ValueError: ``name`` is not one of :data:`COLLECTIONS`.
        OSError: a file is missing or unreadable.
    """
    layout = _layout(name)
    project = project_id or name
    decisions = []
    for doc_id, fields in _records(directory / f"{layout.prefix}.ALL"):
        targets = _cross_references(doc_id, fields.get("X", "")) if links else []
        decisions.append(
            Decision(
                id=doc_id,
                project_id=project,
                title=_one_line(fields.get("T", "")) or "-",
                statement="-",
                rationale=_one_line(fields.get("W", "")),
                agent=name,
                links=tuple(Link(LinkKind.RELATES_TO, t) for t in targets),
            )
        )
    queries = {
        qid: _one_line(f"{fields.get('T', '')} {fields.get('W', '')}")
        for qid, fields in _records(directory / f"{layout.prefix}.QRY")
    }
    relevant: dict[str, set[str]] = {}
    for line in (directory / f"{layout.prefix}.REL").read_text(encoding="latin-1").splitlines():
        parts = line.split()
        if len(parts) > layout.doc_column:
            relevant.setdefault(parts[0], set()).add(parts[layout.doc_column])
    return RetrievalCollection(
        name=name,
        decisions=tuple(decisions),
        queries=queries,
        relevant={q: tuple(sorted(v, key=_id_key)) for q, v in relevant.items()},
    )


def _id_key(doc_id: str) -> tuple[int, str]:
    return (int(doc_id), doc_id) if doc_id.isdigit() else (-1, doc_id)


def ndcg_at(ranked: list[str], relevant: set[str], k: int = 10) -> float:
    """Binary-relevance nDCG at ``k``: 1 when the first ``k`` are as good as they can be."""
    gain = sum(1.0 / math.log2(i + 2) for i, d in enumerate(ranked[:k]) if d in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    return gain / ideal if ideal else 0.0


def recall_at(ranked: list[str], relevant: set[str], k: int = 100) -> float:
    """The share of ``relevant`` found in the first ``k`` of ``ranked``."""
    return len(set(ranked[:k]) & relevant) / len(relevant) if relevant else 0.0

"""Load the CISI test collection as one project of Decision Memory.

CISI (1,460 library-science abstracts, 112 queries, judgements for 76 of them)
is a classic public information-retrieval collection. Each document becomes a
decision with its title as ``title`` and its abstract as ``rationale``; the
numeric id is kept as the decision id so that the judgements line up. The
statement, which a decision requires, is a neutral ``"-"`` that adds no term.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from pathlib import Path

import attrs

from semreport.domain import Decision, Link, LinkKind

__all__ = ["CisiCollection", "find_cisi", "load_cisi", "ndcg_at", "recall_at"]


@attrs.frozen
class CisiCollection:
    """The collection as decisions, queries and judgements.

    Attributes:
        decisions: One decision per document, in id order.
        queries: Query id -> query text (title and text of the query).
        relevant: Query id -> the ids of its relevant documents, in id order.
    """

    decisions: tuple[Decision, ...]
    queries: dict[str, str]
    relevant: dict[str, tuple[str, ...]]

    def text(self, decision_id: str) -> str:
        """The document's full text (title and abstract)."""
        for decision in self.decisions:
            if decision.id == decision_id:
                return f"{decision.title}\n{decision.rationale}"
        raise KeyError(decision_id)


def find_cisi(start: Path | None = None) -> Path | None:
    """Locate the collection: ``$SEMREPORT_CISI_DIR``, else ``../shared/data/cisi`` upwards."""
    env = os.environ.get("SEMREPORT_CISI_DIR")
    if env:
        return Path(env) if (Path(env) / "CISI.ALL").is_file() else None
    here = (start or Path.cwd()).resolve()
    for base in (here, *here.parents):
        candidate = base / ".." / "shared" / "data" / "cisi"
        if (candidate / "CISI.ALL").is_file():
            return candidate.resolve()
    return None


def _records(path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    current: str | None = None
    fields: dict[str, list[str]] = {}
    field = ""
    for line in path.read_text(encoding="latin-1").splitlines():
        if line.startswith(".I "):
            if current is not None:
                yield current, {k: "\n".join(v).strip() for k, v in fields.items()}
            current, fields, field = line[3:].strip(), {}, ""
        elif len(line) >= 2 and line[0] == "." and line[1] in "TAWXB" and line[2:].strip() == "":
            field = line[1]
            fields.setdefault(field, [])
        elif field:
            fields[field].append(line)
    if current is not None:
        yield current, {k: "\n".join(v).strip() for k, v in fields.items()}


def load_cisi(directory: Path, *, project_id: str = "cisi", links: bool = False) -> CisiCollection:
    """Read CISI from ``directory``.

    Args:
        directory: Holds ``CISI.ALL``, ``CISI.QRY`` and ``CISI.REL``.
        project_id: The project the decisions belong to.
        links: Turn the documents' cross-references (``.X``) into ``relates_to`` links.
    """
    decisions = []
    for doc_id, fields in _records(directory / "CISI.ALL"):
        targets: list[str] = []
        if links:
            for line in fields.get("X", "").splitlines():
                parts = line.split()
                if parts and parts[0] != doc_id and parts[0] not in targets:
                    targets.append(parts[0])
        decisions.append(
            Decision(
                id=doc_id,
                project_id=project_id,
                title=" ".join(fields.get("T", "").split()) or "-",
                statement="-",
                rationale=" ".join(fields.get("W", "").split()),
                agent="cisi",
                links=tuple(Link(LinkKind.RELATES_TO, t) for t in targets),
            )
        )
    queries = {
        qid: " ".join(f"{fields.get('T', '')} {fields.get('W', '')}".split())
        for qid, fields in _records(directory / "CISI.QRY")
    }
    relevant: dict[str, list[str]] = {}
    for line in (directory / "CISI.REL").read_text(encoding="latin-1").splitlines():
        parts = line.split()
        if len(parts) >= 2:
            relevant.setdefault(parts[0], []).append(parts[1])
    return CisiCollection(
        decisions=tuple(decisions),
        queries=queries,
        relevant={q: tuple(sorted(set(v), key=int)) for q, v in relevant.items()},
    )


def ndcg_at(ranked: list[str], relevant: set[str], k: int = 10) -> float:
    """Binary-relevance nDCG at ``k``."""
    gain = sum(1.0 / math.log2(i + 2) for i, d in enumerate(ranked[:k]) if d in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    return gain / ideal if ideal else 0.0


def recall_at(ranked: list[str], relevant: set[str], k: int = 100) -> float:
    """The share of ``relevant`` found in the first ``k`` of ``ranked``."""
    return len(set(ranked[:k]) & relevant) / len(relevant) if relevant else 0.0

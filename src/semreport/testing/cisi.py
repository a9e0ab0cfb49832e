"""Load the CISI test collection as one project of Decision Memory.

CISI (1,460 library-science abstracts, 112 queries, judgements for 76 of them)
is a classic public information-retrieval collection. This module keeps the
CISI-only names; :mod:`semreport.testing.collections` reads CISI, MED and ADI
alike and is where they live.
"""

from __future__ import annotations

from pathlib import Path

from semreport.testing.collections import (
    RetrievalCollection,
    find_collection,
    load_collection,
    ndcg_at,
    recall_at,
)

__all__ = ["CisiCollection", "find_cisi", "load_cisi", "ndcg_at", "recall_at"]

CisiCollection = RetrievalCollection
"""The collection as decisions, queries and judgements (:class:`RetrievalCollection`)."""


def find_cisi(start: Path | None = None) -> Path | None:
    """Locate the collection: ``$SEMREPORT_CISI_DIR``, else ``../shared/data/cisi`` upwards."""
    return find_collection("cisi", start)


def load_cisi(
    directory: Path, *, project_id: str = "cisi", links: bool = False
) -> RetrievalCollection:
    """Read CISI from ``directory``.

    Args:
        directory: Holds ``CISI.ALL``, ``CISI.QRY`` and ``CISI.REL``.
        project_id: The project the decisions belong to.
        links: Turn the documents' cross-references (``.X``) into ``relates_to`` links.
    """
    return load_collection("cisi", directory, project_id=project_id, links=links)

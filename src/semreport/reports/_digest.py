"""The record digest ``semreport-digest/1``: citation ids, the Merkle tree, inclusion proofs.

Record bytes are the RFC 8785 canonical JSON of a decision's wire form. The
tree is the RFC 6962 (section 2.1) Merkle tree hash over the record bytes in
sequence order: ``leaf = SHA-256(0x00 || bytes)``, ``node = SHA-256(0x01 ||
left || right)``, split at the largest power of two smaller than ``n``; the
empty tree hashes to ``SHA-256("")``. Audit paths and their check follow
RFC 9162 section 2.1.3.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Final

import attrs

from semreport.canonical import CanonicalizationError, canonical_json_fast
from semreport.domain import FrozenDict
from semreport.domain._models import JsonObject
from semreport.domain._values import JsonValue, thaw_json  # noqa: F401 - resolves JsonObject

__all__ = [
    "CITATION_PREFIX",
    "DIGEST_SCHEME",
    "Digest",
    "InclusionProof",
    "audit_path",
    "check_inclusion",
    "citation_id",
    "leaf_hash",
    "merkle_root",
    "root_from_path",
    "root_of_leaves",
]

DIGEST_SCHEME: Final = "semreport-digest/1"
"""The name of the digest scheme this module implements."""
CITATION_PREFIX: Final = "sha256:"
"""Citation ids are this prefix followed by 64 lowercase hex digits."""

_LEAF: Final = b"\x00"
_NODE: Final = b"\x01"
_sha256 = hashlib.sha256


def citation_id(record_bytes: bytes) -> str:
    """Return a record's citation id: ``sha256:`` and the hex SHA-256 of its bytes."""
    return CITATION_PREFIX + _sha256(record_bytes).hexdigest()


def leaf_hash(record_bytes: bytes) -> bytes:
    """Return the RFC 6962 leaf hash ``SHA-256(0x00 || record_bytes)``."""
    return _sha256(_LEAF + record_bytes).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return _sha256(_NODE + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (``n >= 2``)."""
    return 1 << ((n - 1).bit_length() - 1)


def root_of_leaves(leaves: Sequence[bytes]) -> bytes:
    """The Merkle tree hash over leaf hashes (iteratively, level by level).

    Pairing adjacent nodes left to right and carrying an odd last node up
    unchanged gives exactly the RFC 6962 split-at-power-of-two tree.
    """
    if not leaves:
        return _sha256(b"").digest()
    level = list(leaves)
    while len(level) > 1:
        paired = [_node(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
    return level[0]


def merkle_root(records: Sequence[bytes]) -> str:
    """Return the hex RFC 6962 Merkle tree hash over record bytes in order."""
    return root_of_leaves([leaf_hash(record) for record in records]).hex()


def audit_path(leaves: Sequence[bytes], index: int) -> list[bytes]:
    """Return the RFC 6962 audit path (sibling hashes, leaf to root) for leaf ``index``.

    Args:
        leaves: The leaf hashes (not the record bytes) of the whole tree.
        index: The zero-based position of the leaf.
    """
    if not 0 <= index < len(leaves):
        raise IndexError(f"leaf index {index} is outside a tree of {len(leaves)}")
    path: list[bytes] = []

    def walk(lo: int, hi: int) -> None:
        n = hi - lo
        if n == 1:
            return
        k = _split(n)
        if index < lo + k:
            walk(lo, lo + k)
            path.append(root_of_leaves(leaves[lo + k : hi]))
        else:
            walk(lo + k, hi)
            path.append(root_of_leaves(leaves[lo : lo + k]))

    walk(0, len(leaves))
    return path


def root_from_path(leaf: bytes, index: int, size: int, path: Sequence[bytes]) -> bytes | None:
    """Recompute the root from a leaf hash and its audit path (RFC 9162, 2.1.3.2).

    Returns:
        The root the path leads to, or ``None`` when the path cannot belong to
        leaf ``index`` of a tree of ``size`` leaves (wrong length).
    """
    if not 0 <= index < size:
        return None
    fn, sn = index, size - 1
    result = leaf
    for sibling in path:
        if sn == 0:
            return None
        if fn & 1 or fn == sn:
            result = _node(sibling, result)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            result = _node(result, sibling)
        fn >>= 1
        sn >>= 1
    return result if sn == 0 else None


@attrs.frozen
class Digest:
    """The ``digest`` member of a report.

    Attributes:
        scheme: Always ``semreport-digest/1``.
        records: How many records the report cites.
        as_of_sequence: The sequence number the report was assembled as of.
        records_root: Hex RFC 6962 Merkle tree hash over the record bytes.
        report_sha256: Hex SHA-256 of the canonical report without ``digest``.
    """

    scheme: str
    records: int
    as_of_sequence: int
    records_root: str
    report_sha256: str


@attrs.frozen
class InclusionProof:
    """Proof that one cited decision is leaf ``index`` of a report's record tree.

    Anyone holding the report's ``records_root`` can check it with
    :func:`check_inclusion`, without the other records.

    Attributes:
        scheme: Always ``semreport-digest/1``.
        project_id: The project of the report.
        decision_id: The cited decision.
        sequence: Its sequence number.
        index: Its zero-based leaf position (records in sequence order).
        tree_size: How many records the report cites.
        as_of_sequence: The sequence number the report was assembled as of.
        citation_id: ``sha256:`` and the hex SHA-256 of the record bytes.
        record: The decision's wire form, whose RFC 8785 bytes are the leaf.
        audit_path: Hex sibling hashes from the leaf up to the root.
        records_root: The hex root the path leads to.
    """

    scheme: str
    project_id: str
    decision_id: str
    sequence: int
    index: int
    tree_size: int
    as_of_sequence: int
    citation_id: str
    record: JsonObject
    audit_path: tuple[str, ...]
    records_root: str


def check_inclusion(proof: InclusionProof, root: str | None = None) -> bool:
    """Check an inclusion proof against a records root.

    The record is canonicalised, its citation id and leaf hash recomputed, and
    the audit path folded up to a root that must equal ``root``.

    Args:
        proof: The proof, e.g. from :meth:`semreport.SemReport.prove`.
        root: The hex ``records_root`` you trust (from a report's digest);
            by default the root the proof names, which only checks the
            proof's own consistency.

    Returns:
        Whether the record is the proof's leaf of a tree with that root.
    """
    expected = proof.records_root if root is None else root
    try:
        record_bytes = canonical_json_fast(_thaw(proof.record))
        path = [bytes.fromhex(item) for item in proof.audit_path]
    except (CanonicalizationError, ValueError, TypeError):
        return False
    if proof.scheme != DIGEST_SCHEME or citation_id(record_bytes) != proof.citation_id:
        return False
    if any(len(item) != 32 for item in path):
        return False
    found = root_from_path(leaf_hash(record_bytes), proof.index, proof.tree_size, path)
    return found is not None and found.hex() == expected


def _thaw(value: Any) -> Any:
    return thaw_json(value) if isinstance(value, FrozenDict) else value

"""The record digest: RFC 6962 Merkle tree, audit paths and inclusion proofs."""

from __future__ import annotations

import hashlib

import attrs
import pytest

from _report_support import FakeMemory, decision, sample_project
from semreport.reports import assemble_report, check_inclusion, citation_id, merkle_root, prove
from semreport.reports._digest import audit_path, leaf_hash, root_from_path


def reference_root(records: list[bytes]) -> bytes:
    """RFC 6962 section 2.1, written recursively straight from the text."""
    n = len(records)
    if n == 0:
        return hashlib.sha256(b"").digest()
    if n == 1:
        return hashlib.sha256(b"\x00" + records[0]).digest()
    k = 1
    while k * 2 < n:
        k *= 2
    return hashlib.sha256(
        b"\x01" + reference_root(records[:k]) + reference_root(records[k:])
    ).digest()


# Certificate Transparency's reference test leaves (RFC 6962 implementations share them).
CT_LEAVES = [
    b"",
    b"\x00",
    b"\x10",
    b"\x20\x21",
    b"\x30\x31",
    b"\x40\x41\x42\x43",
    b"\x50\x51\x52\x53\x54\x55\x56\x57",
    b"\x60\x61\x62\x63\x64\x65\x66\x67\x68\x69\x6a\x6b\x6c\x6d\x6e\x6f",
]


class TestMerkleTree:
    """records_root is the RFC 6962 Merkle tree hash."""

    @pytest.mark.parametrize("n", range(20))
    def test_matches_recursive_definition(self, n: int) -> None:
        records = [f"record {i}".encode() for i in range(n)]
        assert merkle_root(records) == reference_root(records).hex()

    def test_certificate_transparency_vectors(self) -> None:
        assert merkle_root(CT_LEAVES[:1]) == (
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"
        )
        assert merkle_root(CT_LEAVES) == (
            "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"
        )

    def test_empty_tree(self) -> None:
        assert merkle_root([]) == hashlib.sha256(b"").hexdigest()

    def test_citation_id(self) -> None:
        assert citation_id(b"{}") == "sha256:" + hashlib.sha256(b"{}").hexdigest()


class TestAuditPath:
    """Audit paths lead from every leaf to the root, and only there."""

    @pytest.mark.parametrize("n", range(1, 18))
    def test_every_leaf_of_every_size(self, n: int) -> None:
        leaves = [leaf_hash(f"r{i}".encode()) for i in range(n)]
        root = reference_root([f"r{i}".encode() for i in range(n)])
        for index in range(n):
            path = audit_path(leaves, index)
            assert root_from_path(leaves[index], index, n, path) == root
            if n > 1:
                wrong = (index + 1) % n
                assert root_from_path(leaves[index], wrong, n, path) != root
                assert root_from_path(leaves[index], index, n, path[:-1]) != root

    def test_path_too_long_or_index_outside(self) -> None:
        leaves = [leaf_hash(b"a"), leaf_hash(b"b")]
        path = audit_path(leaves, 0)
        assert root_from_path(leaves[0], 0, 2, [*path, path[0]]) is None
        assert root_from_path(leaves[0], 2, 2, path) is None
        with pytest.raises(IndexError):
            audit_path(leaves, 2)


class TestInclusionProof:
    """``prove`` gives a proof ``check_inclusion`` accepts against the report's root."""

    def setup_method(self) -> None:
        self.report = assemble_report(FakeMemory(sample_project()), "p-1")

    def test_every_cited_decision_proves(self) -> None:
        for record in self.report.records:
            proof = prove(self.report, record.decision.id)
            assert proof.citation_id == record.sha256
            assert proof.tree_size == 6
            assert check_inclusion(proof, self.report.digest.records_root)
            assert check_inclusion(proof)

    def test_wrong_root_fails(self) -> None:
        proof = prove(self.report, "mat-2")
        other = assemble_report(FakeMemory(sample_project()[:5]), "p-1")
        assert not check_inclusion(proof, other.digest.records_root)

    def test_altered_record_fails(self) -> None:
        proof = prove(self.report, "mat-2")
        record = dict(proof.record)
        record["title"] = "Something else"
        assert not check_inclusion(
            attrs.evolve(proof, record=record), self.report.digest.records_root
        )

    def test_altered_path_or_citation_fails(self) -> None:
        proof = prove(self.report, "mat-2")
        root = self.report.digest.records_root
        flipped = ("f" if proof.audit_path[0][0] != "f" else "e") + proof.audit_path[0][1:]
        assert not check_inclusion(
            attrs.evolve(proof, audit_path=(flipped, *proof.audit_path[1:])), root
        )
        assert not check_inclusion(attrs.evolve(proof, audit_path=("zz",)), root)
        assert not check_inclusion(attrs.evolve(proof, audit_path=("ab",)), root)
        assert not check_inclusion(attrs.evolve(proof, citation_id="sha256:" + "0" * 64), root)
        assert not check_inclusion(attrs.evolve(proof, scheme="other"), root)
        assert not check_inclusion(attrs.evolve(proof, index=proof.index + 1), root)

    def test_unknown_decision(self) -> None:
        from semreport import DecisionNotFound

        with pytest.raises(DecisionNotFound):
            prove(self.report, "nope")

    def test_single_record_tree(self) -> None:
        from semreport.reports import build_report

        report = build_report("p-1", [decision(1)])
        proof = prove(report, "d-1")
        assert proof.audit_path == ()
        assert check_inclusion(proof, report.digest.records_root)

    def test_proof_round_trips_through_the_wire(self) -> None:
        from semreport import from_wire, to_wire
        from semreport.reports import InclusionProof

        proof = prove(self.report, "cost-1")
        again = from_wire(to_wire(proof), InclusionProof)
        assert again == proof
        assert check_inclusion(again, self.report.digest.records_root)

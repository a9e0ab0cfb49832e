"""Unit tests for the facade: auth against the contract, Decision Memory, honest refusals."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

import semreport
from semreport import (
    CatalogueProfileMatchingNotConfigured,
    ConfigurationError,
    Decision,
    DecisionAlreadyRecorded,
    DecisionNotFound,
    Forbidden,
    GnnModelNotLoaded,
    InvalidRequest,
    ModelStatus,
    Principal,
    ReferenceEmbedNotAvailable,
    SemReport,
    SessionAlreadyRecorded,
    SessionNotFound,
    Unauthenticated,
)
from semreport.gnn import NULL_GNN_REASON, NullGNN
from semreport.storage.memory import MemoryStorage

T0 = datetime(2026, 3, 1, tzinfo=UTC)


class FixedClock:
    """A clock that advances one second per reading."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def wire(decision_id: str, project: str = "tower-a", **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": decision_id,
        "project_id": project,
        "title": f"Decision {decision_id}",
        "statement": "Something was decided.",
        "agent": "cost-agent",
    }
    data.update(extra)
    return data


def wire_session(session_id: str, project: str = "tower-a") -> dict[str, Any]:
    return {
        "id": session_id,
        "project_id": project,
        "title": "Workshop",
        "started_at": "2026-03-01T09:00:00Z",
        "participants": [{"id": "ann", "name": "Ann"}],
        "turns": [{"index": 0, "at": "2026-03-01T09:00:00Z", "role": "user", "author": "ann"}],
    }


@pytest.fixture
def sr() -> Iterator[SemReport]:
    with semreport.open("memory://", clock=FixedClock()) as facade:
        yield facade


ALICE = Principal("alice", roles=["user"], projects=["tower-a"])
OPERATOR = Principal("ops", roles=["operator"])


class TestOpen:
    """semreport.open is the composition root."""

    def test_memory_and_repr(self, sr: SemReport) -> None:
        assert isinstance(sr, SemReport)
        assert "MemoryStorage" in repr(sr)
        assert isinstance(sr.storage, MemoryStorage)

    def test_caller_and_require_caller_conflict(self) -> None:
        with pytest.raises(InvalidRequest, match="caller"):
            semreport.open("memory://", caller=ALICE, require_caller=True)

    def test_memory_refuses_unknown_options(self) -> None:
        with pytest.raises(ConfigurationError, match="options"):
            semreport.open("memory://", pool_size=3)

    def test_closed_storage_refuses_writes(self) -> None:
        facade = semreport.open("memory://")
        facade.close()
        with pytest.raises(semreport.StorageError, match="closed"):
            facade.record([wire("d-1")])


class TestRecord:
    """Recording goes through the append-only log with full validation."""

    def test_record_assigns_sequences(self, sr: SemReport) -> None:
        stored = sr.record([wire("d-1"), wire("d-2"), wire("x-1", project="tower-b")])
        assert [(d.project_id, d.sequence) for d in stored] == [
            ("tower-a", 1),
            ("tower-a", 2),
            ("tower-b", 1),
        ]
        assert all(d.recorded_at is not None for d in stored)
        assert sr.latest_sequence("tower-a") == 2
        assert sr.decision("tower-a", "d-2") == stored[1]
        assert sr.decisions("tower-a") == stored[:2]
        assert sr.decisions("tower-a", as_of=1) == stored[:1]

    def test_accepts_models(self, sr: SemReport) -> None:
        d = Decision(id="d-9", project_id="tower-a", title="T", statement="S", agent="a")
        assert sr.record([d])[0].id == "d-9"

    def test_bad_batch_lists_every_error_and_writes_nothing(self, sr: SemReport) -> None:
        sr.record([wire("d-1")])
        bad = [
            wire("d-2"),
            wire("d 3"),
            wire("d-4", attributes={"cost_eur": float("nan")}),
            wire("d-5", recorded_at="2026-01-01T00:00:00"),
            wire("d-6", domain="plumbing"),
        ]
        with pytest.raises(InvalidRequest) as info:
            sr.record(bad)
        assert [e.path for e in info.value.errors] == [
            "$[1].id",
            "$[2].attributes.cost_eur",
            "$[3].recorded_at",
            "$[4].domain",
        ]
        assert sr.latest_sequence("tower-a") == 1

    def test_duplicates_write_nothing(self, sr: SemReport) -> None:
        sr.record([wire("d-1")])
        with pytest.raises(DecisionAlreadyRecorded, match="twice"):
            sr.record([wire("d-2"), wire("d-2")])
        with pytest.raises(DecisionAlreadyRecorded, match="already recorded"):
            sr.record([wire("d-3"), wire("d-1")])
        assert [d.id for d in sr.decisions("tower-a")] == ["d-1"]

    @pytest.mark.parametrize("batch", [wire("d-1"), "d-1", b"x"])
    def test_single_item_instead_of_batch(self, sr: SemReport, batch: Any) -> None:
        with pytest.raises(InvalidRequest, match="expected an array"):
            sr.record(batch)

    def test_unknown_decision(self, sr: SemReport) -> None:
        with pytest.raises(DecisionNotFound):
            sr.decision("tower-a", "nope")

    def test_bad_ids_and_as_of(self, sr: SemReport) -> None:
        with pytest.raises(InvalidRequest) as info:
            sr.decision("bad project", "bad id")
        assert [e.path for e in info.value.errors] == ["$.project_id", "$.decision_id"]
        with pytest.raises(InvalidRequest, match="as_of"):
            sr.decisions("tower-a", as_of="3")  # type: ignore[arg-type]


class TestSessions:
    """Legacy sessions are recorded for imports and read back with auth."""

    def test_record_and_read(self, sr: SemReport) -> None:
        stored = sr.record_sessions([wire_session("s-1")])
        assert sr.session("s-1") == stored[0]
        with pytest.raises(SessionNotFound):
            sr.session("s-2")
        with pytest.raises(SessionAlreadyRecorded):
            sr.record_sessions([wire_session("s-1")])
        with pytest.raises(SessionAlreadyRecorded, match="twice"):
            sr.record_sessions([wire_session("s-3"), wire_session("s-3")])
        with pytest.raises(SessionNotFound):
            sr.session("s-3")

    def test_session_of_another_project_is_answered_as_missing(self, sr: SemReport) -> None:
        sr.record_sessions([wire_session("s-1", project="tower-b")])
        with pytest.raises(SessionNotFound) as hidden:
            sr.session("s-1", caller=ALICE)
        with pytest.raises(SessionNotFound) as missing:
            sr.session("s-9", caller=ALICE)
        assert hidden.value.message.replace("s-1", "X") == missing.value.message.replace("s-9", "X")
        assert "tower-b" not in hidden.value.message


class TestAuth:
    """Every use case runs for a caller, checked against its contract row."""

    def test_no_caller_is_unauthenticated(self) -> None:
        with semreport.open("memory://", require_caller=True) as strict:
            with pytest.raises(Unauthenticated):
                strict.record([wire("d-1")])
            with pytest.raises(Unauthenticated):
                strict.gnn_status()
            with pytest.raises(Unauthenticated):
                strict.capabilities()
            with pytest.raises(Unauthenticated):
                strict.session("s-1")
            assert strict.record([wire("d-1")], caller=ALICE)[0].sequence == 1

    def test_non_principal_caller(self, sr: SemReport) -> None:
        with pytest.raises(Unauthenticated, match="Principal"):
            sr.capabilities(caller="alice")  # type: ignore[arg-type]

    def test_project_grant(self, sr: SemReport) -> None:
        sr.record([wire("d-1", project="tower-b")])
        with pytest.raises(Forbidden) as existing:
            sr.decisions("tower-b", caller=ALICE)
        with pytest.raises(Forbidden) as missing:
            sr.decisions("tower-z", caller=ALICE)
        # The same answer whether or not the project exists.
        assert str(existing.value).replace("tower-b", "P") == str(missing.value).replace(
            "tower-z", "P"
        )
        with pytest.raises(Forbidden):
            sr.record([wire("d-2", project="tower-b")], caller=ALICE)
        assert sr.latest_sequence("tower-b") == 1

    def test_role(self, sr: SemReport) -> None:
        with pytest.raises(Forbidden, match="operator"):
            sr.gnn_status(caller=ALICE)
        assert sr.gnn_status(caller=OPERATOR).loaded is False
        with pytest.raises(Forbidden, match="user"):
            sr.record([wire("d-1")], caller=OPERATOR)
        with pytest.raises(Forbidden):
            sr.embed_reference(caller=OPERATOR)

    def test_default_caller_is_local(self, sr: SemReport) -> None:
        assert sr.gnn_status().loaded is False
        assert sr.record([wire("d-1", project="anything")])[0].sequence == 1


class TestModelSlot:
    """No model is loaded; inference is always refused."""

    def test_status(self, sr: SemReport) -> None:
        status = sr.gnn_status()
        assert status == ModelStatus(loaded=False, reason=NULL_GNN_REASON)

    @pytest.mark.parametrize("payload", [None, {}, {"graph": [1, 2]}, "garbage", b"\x00\xff", 3.5])
    def test_infer_always_refused(self, sr: SemReport, payload: object) -> None:
        with pytest.raises(GnnModelNotLoaded) as info:
            sr.gnn_infer(payload)
        assert info.value.code == "GNN_MODEL_NOT_LOADED"

    def test_infer_refused_before_auth(self) -> None:
        with semreport.open("memory://", require_caller=True) as strict:
            with pytest.raises(GnnModelNotLoaded):
                strict.gnn_infer({"x": 1})
            with pytest.raises(GnnModelNotLoaded):
                strict.gnn_infer(caller=ALICE)

    def test_null_gnn_adapter_refuses_directly(self) -> None:
        with pytest.raises(GnnModelNotLoaded):
            NullGNN().infer({})

    def test_a_loaded_model_would_be_called_after_auth(self) -> None:
        class Loaded:
            def status(self) -> ModelStatus:
                return ModelStatus(loaded=True, reason="test model", model="tiny")

            def infer(self, payload: object) -> Mapping[str, Any]:
                return {"echo": payload}

        with semreport.open("memory://", model=Loaded()) as facade:
            assert facade.gnn_infer(1) == {"echo": 1}
            assert facade.capabilities().model_inference is True
            with pytest.raises(Forbidden):
                facade.gnn_infer(1, caller=ALICE)


class TestCapabilities:
    """Capabilities say what is live; model_inference is never claimed without a model."""

    def test_model_inference_is_false(self, sr: SemReport) -> None:
        caps = sr.capabilities()
        assert caps.model_inference is False
        assert caps.capabilities["model_inference"] is False
        assert "model_inference" not in caps
        assert caps.capabilities["reference_embedding"] is False
        assert caps.capabilities["catalogue_matching"] is False
        assert "model_status" in caps
        assert 3 not in caps  # type: ignore[operator]
        assert caps.model.loaded is False

    def test_every_contract_capability_is_listed(self, sr: SemReport) -> None:
        listed = set(sr.capabilities().capabilities)
        assert listed == {row.capability for row in semreport.CONTRACT}

    def test_live_capabilities_have_their_methods(self, sr: SemReport) -> None:
        caps = sr.capabilities().capabilities
        for row in semreport.CONTRACT:
            if caps[row.capability]:
                assert callable(getattr(sr, row.operation))


class TestReserved:
    """Reserved capabilities answer honestly."""

    def test_reference_embedding(self, sr: SemReport) -> None:
        with pytest.raises(ReferenceEmbedNotAvailable) as info:
            sr.embed_reference({"text": "anything"})
        for domain in ("regulation", "material", "cost", "lifecycle"):
            assert domain in str(info.value)
        assert info.value.code == "REFERENCE_EMBED_NOT_AVAILABLE"

    def test_catalogue_not_configured(self, sr: SemReport) -> None:
        with pytest.raises(CatalogueProfileMatchingNotConfigured) as info:
            sr.match_catalogue({"profile": "IPE 200"})
        assert info.value.code == "CATALOGUE_PROFILE_MATCHING_NOT_CONFIGURED"

    def test_configured_catalogue(self) -> None:
        class Catalogue:
            def match(self, request: Mapping[str, Any]) -> Mapping[str, Any]:
                return {"matched": request["profile"]}

        with semreport.open("memory://", catalogue=Catalogue()) as facade:
            assert facade.match_catalogue({"profile": "IPE 200"}) == {"matched": "IPE 200"}
            assert "catalogue_matching" in facade.capabilities()
            with pytest.raises(InvalidRequest, match="JSON object"):
                facade.match_catalogue(["IPE"])  # type: ignore[arg-type]

"""The sample project is realistic, complete and loads through the wire form."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import semreport
from semreport import DecisionDomain, EvidenceKind, LinkKind, TurnRole, sample

DATA = Path(sample.__file__).with_name("data")


def _chains(decisions: list[semreport.Decision]) -> list[list[str]]:
    """Every maximal supersession chain, newest first."""
    supersedes = {d.id: d.supersedes for d in decisions}
    superseded = {target for targets in supersedes.values() for target in targets}
    chains = []
    for head in (d.id for d in decisions if d.id not in superseded and d.supersedes):
        chain = [head]
        while supersedes.get(chain[-1]):
            chain.append(supersedes[chain[-1]][0])
        chains.append(chain)
    return chains


class TestDecisions:
    """The decisions cover what a mid-rise timber-hybrid project decides."""

    def test_at_least_80_across_the_four_domains(self) -> None:
        decisions = sample.decisions()
        assert len(decisions) >= 80
        domains = Counter(d.domain for d in decisions)
        for domain in ("regulation", "material", "cost", "lifecycle"):
            assert domains[DecisionDomain(domain)] >= 15, domain

    def test_several_agents(self) -> None:
        agents = Counter(d.agent for d in sample.decisions())
        assert len(agents) >= 5
        assert all(count >= 3 for count in agents.values())

    def test_supersession_chains(self) -> None:
        decisions = sample.decisions()
        chains = _chains(decisions)
        assert len(chains) >= 8
        assert max(len(chain) for chain in chains) >= 3
        ids = {d.id for d in decisions}
        for decision in decisions:
            for link in decision.links:
                assert link.target in ids, (decision.id, link.target)

    def test_links_point_backwards_in_recording_order(self) -> None:
        seen: set[str] = set()
        for decision in sample.decisions():
            assert all(link.target in seen for link in decision.links), decision.id
            seen.add(decision.id)

    def test_every_link_kind_is_used(self) -> None:
        kinds = {link.kind for d in sample.decisions() for link in d.links}
        assert kinds == set(LinkKind)

    def test_numeric_attributes(self) -> None:
        decisions = sample.decisions()
        for name in ("cost_eur", "co2e_kg", "fire_resistance_min", "u_value_w_m2k"):
            values = [d.attributes[name] for d in decisions if name in d.attributes]
            assert len(values) >= 4, name
            assert all(isinstance(v, int | float) for v in values), name

    def test_evidence_kinds(self) -> None:
        evidence = [e for d in sample.decisions() for e in d.evidence]
        kinds = Counter(e.kind for e in evidence)
        for kind in EvidenceKind:
            assert kinds[kind] >= 5, kind
        clauses = [e for e in evidence if e.kind is EvidenceKind.REGULATION]
        assert any("OIB-RL 2" in e.ref for e in clauses)
        assert any(e.locator and e.quote for e in clauses)

    def test_elements_and_statuses(self) -> None:
        decisions = sample.decisions()
        assert len({e for d in decisions for e in d.elements}) >= 15
        assert {d.status.value for d in decisions} >= {"accepted", "deprecated", "rejected"}

    def test_some_decisions_come_from_the_sessions(self) -> None:
        origins = {d.session_id for d in sample.decisions()} - {None}
        assert origins == set(sample.SESSION_IDS)


class TestSessions:
    """Two long legacy sessions with tool calls and the Unicode a project holds."""

    def test_two_sessions_of_30_turns_or_more(self) -> None:
        sessions = sample.sessions()
        assert len(sessions) >= 2
        for session in sessions:
            assert len(session.turns) >= 30, session.id
            assert sum(len(t.tool_calls) for t in session.turns) >= 8, session.id
            assert {t.role for t in session.turns} == set(TurnRole)
            assert session.artefacts

    def test_unicode(self) -> None:
        text = json.dumps([semreport.to_wire(s) for s in sample.sessions()], ensure_ascii=False)
        for symbol in ("m²", "CO₂", "≤", "°", "€"):
            assert symbol in text, symbol

    def test_decision_references_exist(self) -> None:
        ids = {d.id for d in sample.decisions()}
        for session in sample.sessions():
            for turn in session.turns:
                assert set(turn.decision_refs) <= ids, turn.index


class TestPackageData:
    """The files are the wire form and load through the facade."""

    def test_every_line_loads_through_from_wire(self) -> None:
        lines = (DATA / "decisions.jsonl").read_text(encoding="utf-8").splitlines()
        decisions = [semreport.from_wire(json.loads(line), semreport.Decision) for line in lines]
        assert [d.id for d in decisions] == [d.id for d in sample.decisions()]

    def test_load_into_a_facade(self) -> None:
        with semreport.open("memory://") as sr:
            loaded = sample.load_into(sr)
            assert loaded == sample.Loaded(sample.PROJECT_ID, len(sample.decisions()), 2)
            assert sr.latest_sequence(sample.PROJECT_ID) == loaded.decisions
            assert sr.session(sample.SESSION_IDS[0]).project_id == sample.PROJECT_ID

    def test_the_package_ships_data_not_generators(self) -> None:
        package = Path(sample.__file__).parent
        assert sorted(p.name for p in package.glob("*.py")) == ["__init__.py"]
        assert sorted(p.relative_to(DATA).as_posix() for p in DATA.rglob("*.json*")) == [
            "decisions.jsonl",
            *sorted(f"sessions/{session_id}.json" for session_id in sample.SESSION_IDS),
        ]

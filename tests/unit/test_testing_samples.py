"""The sample makers live in one place, semreport.testing, and make valid records."""

from __future__ import annotations

import semreport
import semreport.testing
from semreport import Decision, LegacySession, from_wire
from semreport.testing import samples


class TestOnePlace:
    """Every sample maker is reached from semreport.testing; the old homes are gone."""

    def test_exported_from_the_testing_package(self) -> None:
        for name in ("UNICODE_SAMPLES", "preview_session", "sample_decisions", "sample_session"):
            assert getattr(semreport.testing, name) is getattr(samples, name)
            assert name in semreport.testing.__all__

    def test_the_http_testing_module_keeps_only_its_identity_provider(self) -> None:
        from semreport.http import testing

        assert testing.__all__ == ["LocalIdentityProvider", "serve_jwks"]


class TestSampleDecisions:
    """Wire-form decisions that a service records as they are."""

    def test_count_project_and_links(self) -> None:
        wire = samples.sample_decisions("p-9", count=8)
        decisions = [from_wire(d, Decision) for d in wire]
        assert [d.id for d in decisions] == [f"d-{n}" for n in range(1, 9)]
        assert {d.project_id for d in decisions} == {"p-9"}
        assert decisions[6].title.endswith("(7)")
        assert all(d.links[0].target == "d-1" for d in decisions[1:])

    def test_recorded_with_a_session(self) -> None:
        with semreport.open("memory://") as sr:
            stored = sr.record(samples.sample_decisions())
            sessions = sr.record_sessions([samples.sample_session(3, project_id="p-1")])
            assert len(stored) == 6
            assert sessions[0].project_id == "p-1"


class TestSampleSessions:
    """Sessions of any length, and the preview's awkward one."""

    def test_length_and_unicode(self) -> None:
        session = samples.sample_session(9, session_id="s-9")
        assert isinstance(session, LegacySession)
        assert [t.index for t in session.turns] == list(range(9))
        text = " ".join(t.content for t in session.turns)
        assert samples.UNICODE_SAMPLES[0] in text
        assert samples.UNICODE_SAMPLES[1] in text

    def test_one_turn_has_no_artefact(self) -> None:
        assert samples.sample_session(1).artefacts == ()

    def test_preview_session_adds_the_awkward_turn(self) -> None:
        session = samples.preview_session()
        assert len(session.turns) == 25
        last = session.turns[-1]
        assert "\x07" in last.content
        assert last.decision_refs == ("d-clt-slab", "d-unknown")
        assert set(samples.SAMPLE_DECISION_TITLES) == {"d-clt-slab"}

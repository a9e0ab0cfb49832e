"""The auth matrix: every route x every kind of caller, over the real facade.

Tokens are minted in the test from a throw-away JWKS; the facade runs on
``memory://`` storage holding one project (``p-1``) with decisions and a
legacy session.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from joserfc.jwk import RSAKey
from starlette.testclient import TestClient

import semreport
from semreport import CONTRACT, Endpoint, Principal
from semreport.http import create_app
from semreport.http.testing import LocalIdentityProvider

CALLERS = (
    "no token",
    "expired",
    "wrong audience",
    "bad signature",
    "user",
    "operator",
    "user without the project",
)

# What each route answers each valid caller; every invalid credential is 401,
# except on /gnn/infer, which answers 404 to everybody.
EXPECTED: dict[str, dict[str, int]] = {
    "signals": {"user": 200, "operator": 403, "user without the project": 403},
    "find": {"user": 200, "operator": 403, "user without the project": 403},
    "similar": {"user": 200, "operator": 403, "user without the project": 403},
    "gnn_status": {"user": 403, "operator": 200, "user without the project": 403},
    "gnn_infer": {"user": 404, "operator": 404, "user without the project": 404},
    # A session of a project the caller may not read is answered as a missing one.
    "export_session": {"user": 200, "operator": 403, "user without the project": 404},
    "report": {"user": 200, "operator": 403, "user without the project": 403},
    "export_report": {"user": 200, "operator": 403, "user without the project": 403},
    "embed_reference": {"user": 501, "operator": 403, "user without the project": 501},
    "match_catalogue": {"user": 501, "operator": 403, "user without the project": 501},
}

BODIES: dict[str, Any] = {
    "find": {"text": "fire"},
    "similar": {"decision_id": "d-1"},
    "match_catalogue": {"profile": "HEA 200"},
}


def _decisions() -> list[dict[str, Any]]:
    return [
        {
            "id": f"d-{i}",
            "project_id": "p-1",
            "title": f"Fire rated door {i}",
            "statement": "Use EI30 doors on the stair core.",
            "rationale": "The regulation asks for EI30 on escape routes.",
            "agent": "regulation-agent",
            "domain": "regulation",
            "status": "accepted",
            "tags": ["fire", "doors"],
            "attributes": {"cost_eur": 1200 + i, "fire_resistance_min": 30},
        }
        for i in range(1, 4)
    ]


def _session() -> dict[str, Any]:
    at = datetime(2026, 1, 5, 9, 0, tzinfo=UTC).isoformat()
    return {
        "id": "s-1",
        "project_id": "p-1",
        "title": "Stair core fire strategy",
        "started_at": at,
        "participants": [{"id": "ana", "name": "Ana", "role": "user"}],
        "turns": [{"index": 0, "at": at, "role": "user", "author": "ana", "content": "EI30?"}],
    }


@pytest.fixture(scope="module")
def idp() -> LocalIdentityProvider:
    return LocalIdentityProvider()


@pytest.fixture(scope="module")
def client(idp: LocalIdentityProvider) -> Iterator[TestClient]:
    with semreport.open("memory://", require_caller=True) as service:
        seeder = Principal.local("seeder")
        service.record(_decisions(), caller=seeder)
        service.record_sessions([_session()], caller=seeder)
        with TestClient(create_app(service, idp.authenticator())) as client:
            yield client


def _token(idp: LocalIdentityProvider, caller: str) -> str | None:
    if caller == "no token":
        return None
    if caller == "expired":
        return idp.token(roles=["user", "operator"], projects=["p-1"], lifetime=-120)
    if caller == "wrong audience":
        return idp.sign(idp.claims(roles=["user", "operator"], projects=["p-1"], aud="other"))
    if caller == "bad signature":
        stranger = RSAKey.generate_key(2048, parameters={"kid": "rsa-1"})
        return idp.sign(idp.claims(roles=["user", "operator"], projects=["p-1"]), key=stranger)
    if caller == "user":
        return idp.token("ulla", roles=["user"], projects=["p-1"])
    if caller == "operator":
        return idp.token("otto", roles=["operator"], projects=["p-1"])
    assert caller == "user without the project"
    return idp.token("uwe", roles=["user"], projects=["p-2"])


def _url(row: Endpoint, project: str = "p-1") -> str:
    return row.path.format(project_id=project, session_id="s-1", fmt="json")


def _request(client: TestClient, row: Endpoint, token: str | None, url: str) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    body = BODIES.get(row.operation)
    return client.request(row.method, url, headers=headers, json=body)


def test_the_matrix_covers_every_route() -> None:
    assert set(EXPECTED) == {row.operation for row in CONTRACT}


@pytest.mark.parametrize("caller", CALLERS)
@pytest.mark.parametrize("row", CONTRACT, ids=lambda row: row.operation)
class TestAuthMatrix:
    """Every route answers every kind of caller as the contract says."""

    def test_status(
        self, client: TestClient, idp: LocalIdentityProvider, row: Endpoint, caller: str
    ) -> None:
        response = _request(client, row, _token(idp, caller), _url(row))
        if caller in EXPECTED[row.operation]:
            expected = EXPECTED[row.operation][caller]
        else:
            expected = 404 if row.always_refused else 401
        assert response.status_code == expected, response.text
        if expected == 401:
            assert response.headers["www-authenticate"].startswith("Bearer")
            assert response.json()["code"] == "UNAUTHENTICATED"
        if expected == 403:
            assert response.json()["code"] == "FORBIDDEN"


@pytest.mark.parametrize(
    "row",
    [r for r in CONTRACT if r.project_scoped and "project_id" in r.path_params],
    ids=lambda row: row.operation,
)
class TestUnknownProjects:
    """A project that does not exist looks like one the caller may not read."""

    def test_without_a_grant_it_is_403_like_an_existing_one(
        self, client: TestClient, idp: LocalIdentityProvider, row: Endpoint
    ) -> None:
        token = _token(idp, "user without the project")
        missing = _request(client, row, token, _url(row, "p-ghost"))
        existing = _request(client, row, token, _url(row, "p-1"))
        assert missing.status_code == existing.status_code == 403
        assert missing.json()["detail"].replace("p-ghost", "X") == existing.json()[
            "detail"
        ].replace("p-1", "X")

    def test_with_a_grant_it_is_404(
        self, client: TestClient, idp: LocalIdentityProvider, row: Endpoint
    ) -> None:
        token = idp.token("ulla", roles=["user"], projects=["p-ghost"])
        response = _request(client, row, token, _url(row, "p-ghost"))
        assert response.status_code == 404
        assert response.json()["code"] == "PROJECT_NOT_FOUND"


class TestUnknownSessions:
    """A session of a project the caller may not read looks exactly like a missing one."""

    @pytest.mark.parametrize("fmt", ["json", "pdf", "graph"])
    def test_the_answer_names_neither_the_session_nor_its_project(
        self, client: TestClient, idp: LocalIdentityProvider, fmt: str
    ) -> None:
        token = _token(idp, "user without the project")
        headers = {"Authorization": f"Bearer {token}"}
        hidden = client.post(f"/sessions/s-1/export/{fmt}", headers=headers)
        missing = client.post(f"/sessions/s-ghost/export/{fmt}", headers=headers)
        assert hidden.status_code == missing.status_code == 404
        first, second = hidden.json(), missing.json()
        for document in (first, second):
            del document["instance"]  # the request id differs, as it must
        assert first["code"] == "SESSION_NOT_FOUND"
        assert json.dumps(first).replace("s-1", "X") == json.dumps(second).replace("s-ghost", "X")
        assert "p-1" not in hidden.text

"""Authenticators: OpenID Connect token verification and static tokens."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey

from semreport import Authenticator, ConfigurationError, Principal, Role, Unauthenticated
from semreport.http import OIDCAuthenticator, StaticTokenAuthenticator
from semreport.http.testing import LocalIdentityProvider

NOW = 1_800_000_000.0


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@pytest.fixture(scope="module")
def idp() -> LocalIdentityProvider:
    return LocalIdentityProvider(clock=lambda: NOW)


@pytest.fixture
def auth(idp: LocalIdentityProvider) -> OIDCAuthenticator:
    return idp.authenticator(leeway=0)


class TestValidTokens:
    """Tokens signed by a listed key with the right claims give a Principal."""

    def test_rsa_token(self, idp: LocalIdentityProvider, auth: OIDCAuthenticator) -> None:
        token = idp.token("alice", roles=["user"], projects=["p-1", "p-2"])
        principal = auth.authenticate(token)
        assert principal == Principal("alice", roles={Role.USER}, projects={"p-1", "p-2"})

    def test_ec_token(self, idp: LocalIdentityProvider, auth: OIDCAuthenticator) -> None:
        token = idp.sign(idp.claims("bob", roles=["operator"]), key=idp.ec)
        assert auth.authenticate(token).roles == {Role.OPERATOR}

    def test_audience_may_be_a_list(
        self, idp: LocalIdentityProvider, auth: OIDCAuthenticator
    ) -> None:
        token = idp.sign(idp.claims(aud=["other", "semreport"]))
        assert auth.authenticate(token).subject == "alice"

    def test_wildcard_project_grants_every_project(
        self, idp: LocalIdentityProvider, auth: OIDCAuthenticator
    ) -> None:
        principal = auth.authenticate(idp.token(projects=["*", "p-1"]))
        assert principal.all_projects
        assert principal.projects == {"p-1"}

    def test_space_separated_claims_and_unknown_roles(
        self, idp: LocalIdentityProvider, auth: OIDCAuthenticator
    ) -> None:
        claims = idp.claims()
        claims.update(roles="user admin", projects="p-1 p-2")
        token = idp.sign(claims)
        principal = auth.authenticate(token)
        assert principal.roles == {Role.USER}
        assert principal.projects == {"p-1", "p-2"}

    def test_absent_claims_give_no_rights(
        self, idp: LocalIdentityProvider, auth: OIDCAuthenticator
    ) -> None:
        claims = idp.claims()
        del claims["roles"], claims["projects"]
        principal = auth.authenticate(idp.sign(claims))
        assert principal.roles == frozenset()
        assert principal.projects == frozenset()

    def test_configurable_claims_and_role_aliases(self, idp: LocalIdentityProvider) -> None:
        auth = idp.authenticator(
            roles_claim="realm_access.roles",
            projects_claim="semreport_projects",
            role_aliases={"design-ops": "operator"},
            all_projects_value=None,
        )
        claims = idp.claims(
            realm_access={"roles": ["design-ops", "user"]}, semreport_projects=["p-9"]
        )
        principal = auth.authenticate(idp.sign(claims))
        assert principal.roles == {Role.USER, Role.OPERATOR}
        assert principal.projects == {"p-9"}
        assert not principal.all_projects
        # Without a wildcard value, "*" is just a malformed grant.
        with pytest.raises(Unauthenticated):
            auth.authenticate(idp.sign(idp.claims(semreport_projects=["*"])))

    def test_a_dotted_claim_through_a_non_object_is_absent(
        self, idp: LocalIdentityProvider
    ) -> None:
        auth = idp.authenticator(roles_claim="realm_access.roles")
        principal = auth.authenticate(idp.sign(idp.claims(realm_access="x")))
        assert principal.roles == frozenset()

    def test_leeway_tolerates_small_clock_skew(self, idp: LocalIdentityProvider) -> None:
        auth = idp.authenticator(leeway=30)
        token = idp.sign(idp.claims(exp=int(NOW) - 10, nbf=int(NOW) + 10))
        assert auth.authenticate(token).subject == "alice"

    def test_it_is_an_authenticator(self, auth: OIDCAuthenticator) -> None:
        assert isinstance(auth, Authenticator)
        assert "semreport" in repr(auth)


class TestRefusedTokens:
    """Every way a token can be wrong is UNAUTHENTICATED."""

    def _refused(self, auth: OIDCAuthenticator, token: str, match: str) -> None:
        with pytest.raises(Unauthenticated, match=match):
            auth.authenticate(token)

    def test_expired(self, idp: LocalIdentityProvider, auth: OIDCAuthenticator) -> None:
        self._refused(auth, idp.sign(idp.claims(exp=int(NOW) - 1)), "claims")

    def test_without_expiry(self, idp: LocalIdentityProvider, auth: OIDCAuthenticator) -> None:
        claims = idp.claims()
        del claims["exp"]
        self._refused(auth, idp.sign(claims), "claims")

    def test_not_yet_valid(self, idp: LocalIdentityProvider, auth: OIDCAuthenticator) -> None:
        self._refused(auth, idp.sign(idp.claims(nbf=int(NOW) + 60)), "claims")

    def test_wrong_issuer(self, idp: LocalIdentityProvider, auth: OIDCAuthenticator) -> None:
        self._refused(auth, idp.sign(idp.claims(iss="https://evil.invalid")), "claims")

    def test_wrong_audience(self, idp: LocalIdentityProvider, auth: OIDCAuthenticator) -> None:
        self._refused(auth, idp.sign(idp.claims(aud="another-api")), "claims")
        self._refused(auth, idp.sign(idp.claims(aud=["a", "b"])), "claims")

    def test_without_subject(self, idp: LocalIdentityProvider, auth: OIDCAuthenticator) -> None:
        claims = idp.claims()
        del claims["sub"]
        self._refused(auth, idp.sign(claims), "'sub'")

    def test_malformed_grants(self, idp: LocalIdentityProvider, auth: OIDCAuthenticator) -> None:
        self._refused(auth, idp.sign(idp.claims(projects=[1, 2])), "list of strings")
        self._refused(auth, idp.sign(idp.claims(projects=["not an id!"])), "caller")

    def test_bad_signature(self, idp: LocalIdentityProvider, auth: OIDCAuthenticator) -> None:
        header, payload, signature = idp.token().split(".")
        tampered = json.loads(base64.urlsafe_b64decode(payload + "=="))
        tampered["roles"] = ["user", "operator"]
        forged = f"{header}.{_b64(json.dumps(tampered).encode())}.{signature}"
        self._refused(auth, forged, "signature")

    def test_signed_by_a_key_not_in_the_jwks(
        self, idp: LocalIdentityProvider, auth: OIDCAuthenticator
    ) -> None:
        stranger = RSAKey.generate_key(2048, parameters={"kid": "stranger"})
        self._refused(auth, idp.sign(idp.claims(), key=stranger), "does not list")

    def test_an_unlisted_key_reusing_a_listed_kid(
        self, idp: LocalIdentityProvider, auth: OIDCAuthenticator
    ) -> None:
        impostor = RSAKey.generate_key(2048, parameters={"kid": "rsa-1"})
        self._refused(auth, idp.sign(idp.claims(), key=impostor), "signature")

    def test_alg_none(self, idp: LocalIdentityProvider, auth: OIDCAuthenticator) -> None:
        header = _b64(json.dumps({"alg": "none", "kid": "rsa-1", "typ": "JWT"}).encode())
        payload = _b64(json.dumps(idp.claims(roles=["operator"])).encode())
        self._refused(auth, f"{header}.{payload}.", "algorithm")
        self._refused(auth, f"{header}.{payload}", "not a signed JWT")

    @staticmethod
    def _hmac_with_public_key(idp: LocalIdentityProvider, claims: dict[str, Any]) -> str:
        """The classic key-confusion forgery: HS256 keyed with the RSA public key's PEM."""
        header = _b64(json.dumps({"alg": "HS256", "kid": "rsa-1", "typ": "JWT"}).encode())
        payload = _b64(json.dumps(claims).encode())
        secret = idp.rsa.as_pem(private=False)
        mac = hmac.new(secret, f"{header}.{payload}".encode(), hashlib.sha256).digest()
        return f"{header}.{payload}.{_b64(mac)}"

    def test_hmac_signed_with_the_public_key(
        self, idp: LocalIdentityProvider, auth: OIDCAuthenticator
    ) -> None:
        claims = idp.claims(roles=["operator", "user"], projects=["*"])
        self._refused(auth, self._hmac_with_public_key(idp, claims), "algorithm")

    def test_hmac_with_the_public_key_even_when_hmac_is_allowed(
        self, idp: LocalIdentityProvider
    ) -> None:
        auth = idp.authenticator(algorithms=["RS256", "HS256"])
        self._refused(auth, self._hmac_with_public_key(idp, idp.claims()), "signature")

    def test_an_allowed_algorithm_list_is_enforced(self, idp: LocalIdentityProvider) -> None:
        auth = idp.authenticator(algorithms=["ES256"])
        self._refused(auth, idp.token(), "algorithm")

    def test_header_without_kid(self, idp: LocalIdentityProvider, auth: OIDCAuthenticator) -> None:
        token = jwt.encode({"alg": "RS256"}, idp.claims(), idp.rsa, algorithms=["RS256"])
        self._refused(auth, token, "kid")

    @pytest.mark.parametrize("token", ["", "abc", "a.b.c", "x" * 20_000, "é.é.é"])
    def test_garbage(self, auth: OIDCAuthenticator, token: str) -> None:
        with pytest.raises(Unauthenticated):
            auth.authenticate(token)


class TestConfiguration:
    """Misconfiguration fails loudly at construction."""

    def test_none_is_never_an_allowed_algorithm(self, idp: LocalIdentityProvider) -> None:
        with pytest.raises(ConfigurationError, match="none"):
            idp.authenticator(algorithms=["RS256", "none"])
        with pytest.raises(ConfigurationError):
            idp.authenticator(algorithms=[])

    def test_issuer_and_audience_are_required(self, idp: LocalIdentityProvider) -> None:
        with pytest.raises(ConfigurationError):
            OIDCAuthenticator(issuer="", audience="a", jwks=idp.jwks())

    @pytest.mark.parametrize(
        "jwks",
        [
            {"keys": "nope"},
            {},
            {"keys": [{"kty": "RSA"}]},
            {"keys": [{"kty": "EC", "crv": "P-256"}]},
        ],
    )
    def test_unusable_jwks(self, jwks: dict[str, Any]) -> None:
        with pytest.raises(ConfigurationError):
            OIDCAuthenticator(issuer="i", audience="a", jwks=jwks)


class TestStaticTokens:
    """Development tokens."""

    def test_known_and_unknown_tokens(self) -> None:
        alice = Principal("alice", roles={Role.USER}, projects={"p-1"})
        auth = StaticTokenAuthenticator({"t-1": alice, "t-2": Principal.local()})
        assert auth.authenticate("t-1") == alice
        assert auth.authenticate("t-2").all_projects
        with pytest.raises(Unauthenticated):
            auth.authenticate("t-3")
        with pytest.raises(Unauthenticated):
            auth.authenticate("\udcff")
        assert "t-1" not in repr(auth)
        assert isinstance(auth, Authenticator)

    @pytest.mark.parametrize("tokens", [{}, {"": Principal.local()}, {"t": "alice"}])
    def test_bad_configuration(self, tokens: dict[str, Any]) -> None:
        with pytest.raises(ConfigurationError):
            StaticTokenAuthenticator(tokens)

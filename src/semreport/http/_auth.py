"""Authenticators: OpenID Connect bearer tokens and static development tokens."""

from __future__ import annotations

import hmac
import json
import threading
import time
import urllib.request
from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from joserfc import jws, jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from semreport.domain import ConfigurationError, Principal, Role, Unauthenticated

__all__ = [
    "ASYMMETRIC_ALGORITHMS",
    "OIDCAuthenticator",
    "StaticTokenAuthenticator",
]

ASYMMETRIC_ALGORITHMS: Final[tuple[str, ...]] = (
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "ES256",
    "ES384",
    "ES512",
    "EdDSA",
)
"""The signature algorithms :class:`OIDCAuthenticator` accepts by default."""

_SYMMETRIC: Final = frozenset({"HS256", "HS384", "HS512"})
_MAX_TOKEN: Final = 16 * 1024
_MAX_JWKS: Final = 1024 * 1024


class StaticTokenAuthenticator:
    """Fixed tokens mapped to callers, for development and tests.

    Args:
        tokens: Each accepted token and the caller it stands for.

    Example:
        >>> from semreport import Principal
        >>> auth = StaticTokenAuthenticator({"dev-token": Principal.local("dev")})
        >>> auth.authenticate("dev-token").subject
        'dev'
    """

    def __init__(self, tokens: Mapping[str, Principal]) -> None:
        if not tokens:
            raise ConfigurationError("StaticTokenAuthenticator needs at least one token")
        for token, principal in tokens.items():
            if not _is_text(token):
                raise ConfigurationError("static tokens must be non-empty strings")
            if not isinstance(principal, Principal):
                raise ConfigurationError("each static token must map to a Principal")
        self._tokens = [(token.encode("utf-8"), principal) for token, principal in tokens.items()]

    def __repr__(self) -> str:
        return f"StaticTokenAuthenticator(<{len(self._tokens)} token(s)>)"

    def authenticate(self, token: str) -> Principal:
        """Return the caller of a known token (compared in constant time)."""
        given = token.encode("utf-8", "surrogateescape")
        found: Principal | None = None
        for known, principal in self._tokens:
            # Compare against every token so the time taken does not say which one matched.
            if hmac.compare_digest(given, known):
                found = principal
        if found is None:
            raise Unauthenticated("the bearer token is not valid")
        return found


class OIDCAuthenticator:
    """Bearer tokens from an OpenID Connect identity provider, verified against its JWKS.

    The token must be a signed JWT (JWS compact form) whose header names a
    key (``kid``) of the JWKS and an allowed algorithm, whose signature
    verifies with that key, and whose claims carry the expected issuer and
    audience, an expiry in the future and, when present, a not-before time in
    the past. Unsigned tokens (``alg: none``) and HMAC tokens are refused
    unless HMAC is explicitly allowed, so a public key can never be used as
    an HMAC secret.

    Args:
        issuer: The expected ``iss`` claim.
        audience: The expected ``aud`` claim (the token's ``aud`` may be a
            list containing it).
        jwks: Where the keys are: an ``https://`` or ``http://`` URL, a file
            path, or the JWKS itself as a mapping.
        algorithms: The signature algorithms accepted (asymmetric ones by default).
        roles_claim: The claim holding the caller's roles; a dotted path
            reaches into objects (``realm_access.roles`` for Keycloak).
        projects_claim: The claim holding the projects the caller may read.
        all_projects_value: A value of the projects claim granting every project.
        role_aliases: Maps the identity provider's role names to semreport
            roles (``{"semreport-operator": "operator"}``); ``user`` and
            ``operator`` are always understood.
        subject_claim: The claim naming the caller.
        leeway: Seconds of clock skew tolerated for ``exp`` and ``nbf``.
        cache_seconds: How long keys fetched from a URL are reused.
        min_refresh_seconds: The least time between two fetches, so unknown
            ``kid`` values cannot make the service hammer the provider.
        timeout: Seconds allowed for fetching the JWKS.
        clock: Returns the current time in seconds (tests pass their own).
    """

    def __init__(
        self,
        *,
        issuer: str,
        audience: str,
        jwks: str | Path | Mapping[str, Any],
        algorithms: Collection[str] = ASYMMETRIC_ALGORITHMS,
        roles_claim: str = "roles",
        projects_claim: str = "projects",
        all_projects_value: str | None = "*",
        role_aliases: Mapping[str, str] | None = None,
        subject_claim: str = "sub",
        leeway: int = 30,
        cache_seconds: float = 300.0,
        min_refresh_seconds: float = 30.0,
        timeout: float = 5.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not issuer or not audience:
            raise ConfigurationError("OIDCAuthenticator needs an issuer and an audience")
        algorithms = tuple(algorithms)
        if not algorithms or "none" in {a.lower() for a in algorithms}:
            raise ConfigurationError("allowed algorithms must be non-empty and exclude 'none'")
        self._issuer = issuer
        self._audience = audience
        self._algorithms = algorithms
        self._roles_claim = roles_claim.split(".")
        self._projects_claim = projects_claim.split(".")
        self._all_projects_value = all_projects_value
        aliases = {role.value: role for role in Role}
        for name, role in (role_aliases or {}).items():
            aliases[name] = Role(role)
        self._aliases = aliases
        self._subject_claim = subject_claim
        self._leeway = leeway
        self._clock = clock
        self._cache_seconds = cache_seconds
        self._min_refresh = min_refresh_seconds
        self._timeout = timeout
        self._lock = threading.Lock()
        self._source: str | Path | None
        if isinstance(jwks, Mapping):
            self._source = None
            self._keys: KeySet | None = _key_set(jwks)
        else:
            self._source = jwks
            self._keys = None
        self._fetched_at = float("-inf")

    def __repr__(self) -> str:
        return f"OIDCAuthenticator(issuer={self._issuer!r}, audience={self._audience!r})"

    # -- keys ------------------------------------------------------------------------

    def _load(self) -> KeySet:
        source = self._source
        assert source is not None
        text: bytes
        try:
            if isinstance(source, str) and source.startswith(("https://", "http://")):
                request = urllib.request.Request(  # noqa: S310 - the scheme is checked above
                    source, headers={"Accept": "application/json"}
                )
                with urllib.request.urlopen(request, timeout=self._timeout) as response:  # noqa: S310
                    text = response.read(_MAX_JWKS + 1)
            else:
                text = Path(source).read_bytes()
            if len(text) > _MAX_JWKS:
                raise ValueError("the JWKS is larger than 1 MiB")
            return _key_set(json.loads(text))
        except (OSError, ValueError, ConfigurationError) as exc:
            raise ConfigurationError(f"cannot load the JWKS from {source}: {exc}") from exc

    def keys(self, *, refresh: bool = False) -> KeySet:
        """Return the JWKS, fetching it when the cache is stale (or ``refresh`` asks).

        A refresh is skipped when the last fetch is younger than
        ``min_refresh_seconds``.

        Raises:
            ConfigurationError: the JWKS cannot be fetched or parsed and no
                earlier copy is cached.
        """
        if self._source is None:
            assert self._keys is not None
            return self._keys
        with self._lock:
            now = self._clock()
            age = now - self._fetched_at
            stale = self._keys is None or age >= self._cache_seconds
            if (stale or refresh) and age >= self._min_refresh:
                try:
                    self._keys = self._load()
                except ConfigurationError:
                    if self._keys is None:
                        raise
                    # Keep serving the keys we have while the provider is unreachable.
                self._fetched_at = now
            assert self._keys is not None
            return self._keys

    # -- tokens ----------------------------------------------------------------------

    def authenticate(self, token: str) -> Principal:
        """Verify a bearer token and return its caller.

        Raises:
            Unauthenticated: the token cannot be verified (the message says why,
                without echoing the token).
        """
        if not _is_text(token) or len(token) > _MAX_TOKEN:
            raise Unauthenticated("the bearer token is missing or too long")
        try:
            header = jws.extract_compact(token.encode("ascii")).headers()
        except (JoseError, ValueError, UnicodeError) as exc:
            raise Unauthenticated("the bearer token is not a signed JWT") from exc
        alg = header.get("alg")
        if not isinstance(alg, str) or alg not in self._algorithms:
            raise Unauthenticated(f"the token's algorithm {alg!r} is not accepted")
        kid = header.get("kid")
        if not isinstance(kid, str):
            raise Unauthenticated("the token's header names no key ('kid')")
        key = self._find_key(kid)
        try:
            verified = jwt.decode(token, key, algorithms=[alg])
        except (JoseError, ValueError, TypeError) as exc:
            raise Unauthenticated("the token's signature does not verify") from exc
        claims: dict[str, Any] = dict(verified.claims)
        self._check_claims(claims)
        return self._principal(claims)

    def _find_key(self, kid: str) -> Any:
        for refresh in (False, True):
            keys = self.keys(refresh=refresh)
            for key in keys.keys:
                if key.kid == kid:
                    return key
            if self._source is None:
                break
        raise Unauthenticated("the token was signed by a key the identity provider does not list")

    def _check_claims(self, claims: dict[str, Any]) -> None:
        registry = jwt.JWTClaimsRegistry(
            now=int(self._clock()),
            leeway=self._leeway,
            iss={"essential": True, "value": self._issuer},
            aud={"essential": True, "value": self._audience},
            exp={"essential": True},
        )
        try:
            registry.validate(claims)
        except JoseError as exc:
            raise Unauthenticated(f"the token's claims are not accepted: {exc}") from exc

    def _principal(self, claims: Mapping[str, Any]) -> Principal:
        subject = claims.get(self._subject_claim)
        if not isinstance(subject, str) or not subject.strip():
            raise Unauthenticated(f"the token has no {self._subject_claim!r} claim")
        roles = self._roles(claims)
        granted = _strings(_claim(claims, self._projects_claim), "projects")
        all_projects = self._all_projects_value is not None and self._all_projects_value in granted
        projects = [p for p in granted if p != self._all_projects_value]
        try:
            return Principal(subject, roles=roles, projects=projects, all_projects=all_projects)
        except (TypeError, ValueError) as exc:
            raise Unauthenticated(f"the token's claims do not describe a caller: {exc}") from exc

    def _roles(self, claims: Mapping[str, Any]) -> set[Role]:
        names = _strings(_claim(claims, self._roles_claim), "roles")
        return {self._aliases[name] for name in names if name in self._aliases}


def _is_text(value: object) -> bool:
    return isinstance(value, str) and bool(value)


def _claim(claims: Mapping[str, Any], path: Iterable[str]) -> object:
    value: object = claims
    for step in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(step)
    return value


def _strings(value: object, what: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(value)
    raise Unauthenticated(f"the token's {what} claim must be a list of strings")


def _key_set(data: object) -> KeySet:
    if not isinstance(data, Mapping) or not isinstance(data.get("keys"), list):
        raise ConfigurationError("a JWKS is a JSON object with a 'keys' list")
    try:
        keys = KeySet.import_key_set(dict(data))  # type: ignore[arg-type]
    except (JoseError, ValueError, TypeError, KeyError) as exc:
        raise ConfigurationError(f"the JWKS holds an unusable key: {exc}") from exc
    # joserfc names a key without "kid" by its RFC 7638 thumbprint.
    return keys

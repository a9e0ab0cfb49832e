"""A throw-away identity provider for tests: a JWKS, and tokens signed by its keys.

Use it to test an application that mounts the HTTP adapter without a real
OpenID Connect provider::

    idp = LocalIdentityProvider()
    auth = idp.authenticator()
    token = idp.token("alice", roles=["user"], projects=["p-1"])

Sample records to seed a service with are in :mod:`semreport.testing.samples`.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final

from joserfc import jwt
from joserfc.jwk import ECKey, Key, RSAKey

from semreport.http._auth import OIDCAuthenticator

__all__ = ["LocalIdentityProvider", "serve_jwks"]

ISSUER: Final = "https://idp.semreport.invalid"
AUDIENCE: Final = "semreport"


class LocalIdentityProvider:
    """Signing keys, their JWKS and a token minter, all in memory.

    Args:
        issuer: The ``iss`` of minted tokens.
        audience: The ``aud`` of minted tokens.
        clock: Returns the current time in seconds.
    """

    def __init__(
        self,
        *,
        issuer: str = ISSUER,
        audience: str = AUDIENCE,
        clock: Any = time.time,
    ) -> None:
        self.issuer = issuer
        self.audience = audience
        self.clock = clock
        self.rsa = RSAKey.generate_key(2048, parameters={"kid": "rsa-1", "use": "sig"})
        self.ec = ECKey.generate_key("P-256", parameters={"kid": "ec-1", "use": "sig"})

    @property
    def keys(self) -> list[Key]:
        """The signing keys (private), in JWKS order."""
        return [self.rsa, self.ec]

    def jwks(self) -> dict[str, Any]:
        """The public JWKS, as an identity provider publishes it."""
        return {"keys": [key.as_dict(private=False) for key in self.keys]}

    def authenticator(self, **options: Any) -> OIDCAuthenticator:
        """An :class:`~semreport.http.OIDCAuthenticator` trusting this provider's JWKS."""
        options.setdefault("clock", self.clock)
        return OIDCAuthenticator(
            issuer=self.issuer, audience=self.audience, jwks=self.jwks(), **options
        )

    def claims(
        self,
        subject: str = "alice",
        *,
        roles: Sequence[str] = ("user",),
        projects: Sequence[str] = (),
        lifetime: float = 300.0,
        **extra: Any,
    ) -> dict[str, Any]:
        """The claims of a token valid now for ``lifetime`` seconds."""
        now = int(self.clock())
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "aud": self.audience,
            "sub": subject,
            "iat": now,
            "nbf": now,
            "exp": now + int(lifetime),
            "roles": list(roles),
            "projects": list(projects),
        }
        claims.update(extra)
        return claims

    def sign(
        self,
        claims: Mapping[str, Any],
        *,
        key: Key | None = None,
        alg: str | None = None,
        header: Mapping[str, Any] | None = None,
    ) -> str:
        """Sign ``claims`` with one of the keys (RSA by default)."""
        key = key if key is not None else self.rsa
        alg = alg or ("RS256" if isinstance(key, RSAKey) else "ES256")
        full = {"alg": alg, "kid": key.kid, **(header or {})}
        return jwt.encode(full, dict(claims), key, algorithms=[alg])

    def token(self, subject: str = "alice", **options: Any) -> str:
        """A signed token for ``subject``; options as for :meth:`claims`."""
        return self.sign(self.claims(subject, **options))


@contextmanager
def serve_jwks(document: Mapping[str, Any]) -> Iterator[tuple[str, list[int]]]:
    """Serve a JWKS on a loopback port for the duration of the block.

    The document is serialised on every request, so changing it in place
    (``document["keys"] = ...``) simulates a key rotation.

    Yields:
        The JWKS URL and a one-item list counting the requests served.
    """
    hits = [0]

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits[0] += 1
            body = json.dumps(document).encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/jwks.json", hits
    finally:
        server.shutdown()
        server.server_close()
        thread.join()

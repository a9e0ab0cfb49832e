"""The HTTP adapter's public API, as users write it (checked by mypy, not run)."""

from __future__ import annotations

from starlette.applications import Starlette

import semreport
from semreport import Authenticator, Principal
from semreport.http import (
    AuthSettings,
    ExecutorLimits,
    OIDCAuthenticator,
    StaticTokenAuthenticator,
    create_app,
    serve,
)


def build() -> Starlette:
    service = semreport.open("memory://", require_caller=True)
    auth: Authenticator = OIDCAuthenticator(
        issuer="https://id.example.org", audience="semreport", jwks="/etc/semreport/jwks.json"
    )
    return create_app(
        service,
        auth,
        light=ExecutorLimits(threads=4, queue=64),
        heavy=ExecutorLimits(threads=2, queue=16),
        time_limits={"report": 30.0},
        metrics=True,
    )


def develop() -> None:
    auth = StaticTokenAuthenticator({"dev": Principal.local("dev")})
    caller: Principal = auth.authenticate("dev")
    assert caller.subject == "dev"
    serve("sqlite:///project.db", authenticator=auth, host="127.0.0.1", port=8000)


def replicas() -> None:
    settings = AuthSettings(dev_token="dev")
    serve("postgresql://db/semreport", authenticator=settings, workers=4, cursor_key=b"k" * 32)

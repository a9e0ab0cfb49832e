"""The optional HTTP adapter: the whole contract over ASGI (extra ``http``).

Build the application with :func:`create_app` and serve it with any ASGI
server, mount it into FastAPI, Starlette or Litestar, or run
``python -m semreport.http --url sqlite:///project.db`` (see :func:`serve`)::

    import semreport
    from semreport.http import OIDCAuthenticator, create_app

    service = semreport.open("sqlite:///project.db", require_caller=True)
    auth = OIDCAuthenticator(
        issuer="https://id.example.org/realms/design",
        audience="semreport",
        jwks="https://id.example.org/realms/design/protocol/openid-connect/certs",
    )
    app = create_app(service, auth)
"""

from __future__ import annotations

try:
    import joserfc  # noqa: F401
    import starlette  # noqa: F401
    import uvicorn  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    from semreport.domain import MissingExtra

    raise MissingExtra(
        f"the HTTP adapter needs the 'http' extra ({exc.name} is missing): "
        "pip install 'semreport[http]'"
    ) from exc

from semreport.http._app import (
    DEFAULT_HEAVY,
    DEFAULT_LIGHT,
    DIGEST_HEADER_PREFIX,
    MAX_BODY_BYTES,
    create_app,
)
from semreport.http._auth import ASYMMETRIC_ALGORITHMS, OIDCAuthenticator, StaticTokenAuthenticator
from semreport.http._errors import (
    ERROR_STATUSES,
    PROBLEM_MEDIA_TYPE,
    ServiceUnavailable,
    UnsupportedMediaType,
    problem,
    problem_response,
    status_of,
)
from semreport.http._lanes import Busy, ExecutorLimits, TimedOut
from semreport.http._openapi import build_openapi, load_openapi
from semreport.http._serve import (
    CURSOR_KEY_ENV,
    AuthSettings,
    build_authenticator,
    read_cursor_key,
    serve,
    worker_app,
)

__all__ = [
    "ASYMMETRIC_ALGORITHMS",
    "CURSOR_KEY_ENV",
    "DEFAULT_HEAVY",
    "DEFAULT_LIGHT",
    "DIGEST_HEADER_PREFIX",
    "ERROR_STATUSES",
    "MAX_BODY_BYTES",
    "PROBLEM_MEDIA_TYPE",
    "AuthSettings",
    "Busy",
    "ExecutorLimits",
    "OIDCAuthenticator",
    "ServiceUnavailable",
    "StaticTokenAuthenticator",
    "TimedOut",
    "UnsupportedMediaType",
    "build_authenticator",
    "build_openapi",
    "create_app",
    "load_openapi",
    "problem",
    "problem_response",
    "read_cursor_key",
    "serve",
    "status_of",
    "worker_app",
]

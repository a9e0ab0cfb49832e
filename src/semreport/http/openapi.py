"""Regenerate the checked-in OpenAPI document: ``python -m semreport.http.openapi [--check]``."""

from __future__ import annotations

from semreport.http._openapi import OPENAPI_PATH, build_openapi, load_openapi, main, render_openapi

__all__ = ["OPENAPI_PATH", "build_openapi", "load_openapi", "main", "render_openapi"]

if __name__ == "__main__":
    raise SystemExit(main())

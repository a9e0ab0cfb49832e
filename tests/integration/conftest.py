"""Fixtures for the integration tests."""

from __future__ import annotations

from pg_support import pg_schema, pg_schemas

__all__ = ["pg_schema", "pg_schemas"]

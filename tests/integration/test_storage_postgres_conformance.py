"""The storage conformance suite, run against PostgreSQL (one schema per opened name)."""

from __future__ import annotations

from typing import Any

import pytest
from pg_support import POSTGRES_URL, SchemaFactory, pg_marks

from semreport.storage.postgres import PostgresStorage, open_postgres
from semreport.testing import PersistentStorageConformance

pytestmark = pg_marks


class TestPostgresConformance(PersistentStorageConformance):
    """``postgresql://`` keeps every rule, persistence included; no rule is skipped."""

    @pytest.fixture(autouse=True)
    def _schemas(self, pg_schemas: SchemaFactory) -> None:
        self._prefix = pg_schemas.prefix

    def open_storage(self, name: str, clock: Any) -> PostgresStorage:
        return open_postgres(
            POSTGRES_URL, schema=f"{self._prefix}_{name}", clock=clock, pool_min_size=1
        )

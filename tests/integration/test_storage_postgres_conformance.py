"""The storage conformance suite, run against PostgreSQL (one schema per opened name)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pg_support import POSTGRES_URL, SchemaFactory, alter_stored, pg_marks

from semreport.domain import Storage
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

    def alter_stored_decision(
        self, storage: Storage, project_id: str, sequence: int, change: Callable[[str], str]
    ) -> None:
        assert isinstance(storage, PostgresStorage)
        where = "project_id = %s AND sequence = %s"
        alter_stored(storage.schema, "decisions", where, (project_id, sequence), change)

    def alter_stored_session(
        self, storage: Storage, session_id: str, change: Callable[[str], str]
    ) -> None:
        assert isinstance(storage, PostgresStorage)
        alter_stored(storage.schema, "sessions", "id = %s", (session_id,), change)

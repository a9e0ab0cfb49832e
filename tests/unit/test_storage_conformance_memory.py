"""The storage conformance suite, run against ``memory://``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from semreport.domain import Storage
from semreport.storage.memory import MemoryStorage
from semreport.testing import StorageConformance


class TestMemoryStorageConformance(StorageConformance):
    """``MemoryStorage`` keeps every rule (it cannot be reopened, so no persistence rules)."""

    def open_storage(self, name: str, clock: Any) -> MemoryStorage:
        return MemoryStorage(clock=clock)

    # The memory adapter keeps its rows in lists and dicts: altering one is what a
    # stray reference or a debugger could do to them.

    def alter_stored_decision(
        self, storage: Storage, project_id: str, sequence: int, change: Callable[[str], str]
    ) -> None:
        assert isinstance(storage, MemoryStorage)
        rows = storage._log[project_id]
        row = rows[sequence - 1]
        rows[sequence - 1] = row._replace(body=change(row.body))

    def alter_stored_session(
        self, storage: Storage, session_id: str, change: Callable[[str], str]
    ) -> None:
        assert isinstance(storage, MemoryStorage)
        stored = storage._sessions[session_id]
        row = stored.row._replace(body=change(stored.row.body))
        storage._sessions[session_id] = stored._replace(row=row)


class TestTheSuiteItself:
    """No rule hides another: every test name is defined by one rule class only."""

    def test_rule_names_are_unique(self) -> None:
        import inspect

        from semreport.testing import conformance

        seen: dict[str, str] = {}
        for name, cls in inspect.getmembers(conformance, inspect.isclass):
            if not name.endswith("Rules"):
                continue
            for attribute in vars(cls):
                if attribute.startswith("test_"):
                    assert attribute not in seen, f"{attribute} in {seen.get(attribute)} and {name}"
                    seen[attribute] = name
        assert len(seen) > 40

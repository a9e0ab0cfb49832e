"""The storage conformance suite, run against ``memory://``."""

from __future__ import annotations

from typing import Any

from semreport.storage.memory import MemoryStorage
from semreport.testing import StorageConformance


class TestMemoryStorageConformance(StorageConformance):
    """``MemoryStorage`` keeps every rule (it cannot be reopened, so no persistence rules)."""

    def open_storage(self, name: str, clock: Any) -> MemoryStorage:
        return MemoryStorage(clock=clock)


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

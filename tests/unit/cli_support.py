"""Helpers for the command-line tests: a memory store that outlives each command."""

from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner, Result

from semreport import storage as storage_registry
from semreport.cli import cli
from semreport.storage.memory import MemoryStorage

URL = "clitest://"
"""The storage URL the tests pass; every command of one test sees the same store."""


class Unclosable:
    """Wraps a store so that each command's ``close()`` leaves it usable for the next."""

    def __init__(self, inner: MemoryStorage) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def close(self) -> None:
        """Keep the store open: the next command of the test reads it."""


def shared_store(monkeypatch: pytest.MonkeyPatch) -> MemoryStorage:
    """Register ``clitest://`` for this test and return the store behind it."""
    store = MemoryStorage()
    monkeypatch.setitem(
        storage_registry._registered, "clitest", lambda _url, **_options: Unclosable(store)
    )
    return store


def run(*args: str, input: str | None = None) -> Result:  # noqa: A002 - click's own name
    """Invoke the command line as a user would, without letting exceptions escape."""
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)

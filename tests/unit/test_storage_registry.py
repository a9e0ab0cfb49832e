"""The storage registry: URL scheme -> adapter, lazily, with entry points and install hints."""

from __future__ import annotations

import importlib.metadata
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import semreport
import semreport.storage as registry
from semreport.domain import ConfigurationError, MissingExtra, Storage, UnknownStorageScheme
from semreport.storage import ENTRY_POINT_GROUP, open_storage, register, schemes
from semreport.storage.memory import MemoryStorage


@pytest.fixture(autouse=True)
def _clean_registrations(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_registered", {})


class TestURLs:
    """A storage URL must name a known scheme."""

    def test_memory(self) -> None:
        assert isinstance(open_storage("memory://"), MemoryStorage)

    def test_scheme_is_case_insensitive(self) -> None:
        assert isinstance(open_storage("MEMORY://"), MemoryStorage)

    @pytest.mark.parametrize("url", ["", "memory", "/tmp/x.db", "x.db"])
    def test_a_url_without_scheme_is_a_configuration_error(self, url: str) -> None:
        with pytest.raises(ConfigurationError, match="scheme://"):
            open_storage(url)

    def test_an_empty_scheme_is_a_configuration_error(self) -> None:
        with pytest.raises(ConfigurationError, match="no scheme"):
            open_storage("://x")

    def test_an_unknown_scheme_names_the_known_ones(self) -> None:
        with pytest.raises(UnknownStorageScheme, match=r"'mongodb'.*memory, .*sqlite"):
            open_storage("mongodb://localhost/x")

    def test_unknown_scheme_through_the_facade(self) -> None:
        with pytest.raises(UnknownStorageScheme):
            semreport.open("cassandra://x")

    def test_schemes_lists_the_builtins(self) -> None:
        assert {"memory", "sqlite", "postgresql"} <= set(schemes())

    def test_memory_refuses_unknown_options(self) -> None:
        with pytest.raises(semreport.SemReportError):
            open_storage("memory://", colour="red")


class TestMissingExtra:
    """An adapter whose extra is not installed says how to install it."""

    def test_postgres_without_psycopg_gives_the_install_hint(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # A None entry in sys.modules makes ``import psycopg`` fail as if it were absent.
        monkeypatch.setitem(sys.modules, "psycopg", None)
        with pytest.raises(MissingExtra, match=r"pip install 'semreport\[postgres\]'"):
            open_storage("postgresql://localhost/x")
        assert MissingExtra.code == "MISSING_EXTRA"

    def test_a_broken_entry_point_is_a_missing_extra(self, monkeypatch: pytest.MonkeyPatch) -> None:
        point = importlib.metadata.EntryPoint(
            name="broken", value="no_such_module_xyz:factory", group=ENTRY_POINT_GROUP
        )
        monkeypatch.setattr(registry, "entry_points", _entry_points_with(point))
        with pytest.raises(MissingExtra, match="no_such_module_xyz"):
            open_storage("broken://x")


def _entry_points_with(*points: importlib.metadata.EntryPoint) -> Any:
    real = importlib.metadata.entry_points

    def entry_points(**params: Any) -> importlib.metadata.EntryPoints:
        if params.get("group") != ENTRY_POINT_GROUP:
            return real(**params)
        chosen = [p for p in points if "name" not in params or p.name == params["name"]]
        return importlib.metadata.EntryPoints(chosen)

    return entry_points


class TestThirdPartyAdapters:
    """Adapters from other distributions plug in by entry point or by :func:`register`."""

    def test_register_adds_a_scheme(self) -> None:
        made: list[tuple[str, dict[str, Any]]] = []

        def factory(url: str, **options: Any) -> Storage:
            made.append((url, options))
            return MemoryStorage()

        register("Custom", factory)
        store = open_storage("custom://anything", flag=True)
        assert isinstance(store, MemoryStorage)
        assert made == [("custom://anything", {"flag": True})]
        assert "custom" in schemes()

    def test_register_overrides_a_builtin(self) -> None:
        marker = MemoryStorage()
        register("sqlite", lambda url, **options: marker)
        assert open_storage("sqlite:///ignored.db") is marker

    def test_an_installed_distribution_is_found_by_entry_point(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        package = tmp_path / "acme_store"
        package.mkdir()
        (package / "__init__.py").write_text(
            textwrap.dedent(
                """
                from semreport.storage.memory import MemoryStorage

                class AcmeStorage(MemoryStorage):
                    pass

                def open_acme(url, **options):
                    return AcmeStorage(**options)
                """
            )
        )
        dist = tmp_path / "acme_store-1.0.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-store\nVersion: 1.0\n")
        (dist / "entry_points.txt").write_text(
            f"[{ENTRY_POINT_GROUP}]\nacme = acme_store:open_acme\n"
        )
        monkeypatch.syspath_prepend(str(tmp_path))
        assert "acme" in schemes()
        store = open_storage("acme://bucket")
        assert type(store).__name__ == "AcmeStorage"
        sr = semreport.open("acme://bucket")
        assert sr.latest_sequence("p-1") == 0
        monkeypatch.delitem(sys.modules, "acme_store")

    def test_an_entry_point_is_loaded_only_when_its_scheme_is_used(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        point = importlib.metadata.EntryPoint(
            name="lazy", value="no_such_module_xyz:factory", group=ENTRY_POINT_GROUP
        )
        monkeypatch.setattr(registry, "entry_points", _entry_points_with(point))
        assert isinstance(open_storage("memory://"), MemoryStorage)
        assert "lazy" in schemes()


class TestCreate:
    """``create=False`` reaches the factory; creating stays the default; old plug-ins work."""

    def test_a_factory_that_takes_create_is_told(self) -> None:
        told: list[bool] = []

        def factory(url: str, *, create: bool = True) -> Storage:
            told.append(create)
            return MemoryStorage()

        register("told", factory)
        open_storage("told://x")
        open_storage("told://x", create=False)
        semreport.open("told://x", create=False)
        assert told == [True, False, False]

    def test_options_reach_a_factory_taking_keywords(self) -> None:
        made: list[dict[str, Any]] = []

        def factory(url: str, **options: Any) -> Storage:
            made.append(options)
            return MemoryStorage()

        register("kw", factory)
        open_storage("kw://x", flag=1)
        open_storage("kw://x", create=False, flag=2)
        # Creating is the default, so an older factory is called exactly as before.
        assert made == [{"flag": 1}, {"create": False, "flag": 2}]

    def test_a_factory_that_cannot_be_told_is_refused(self) -> None:
        register("old", lambda url: MemoryStorage())
        assert isinstance(open_storage("old://x"), MemoryStorage)
        with pytest.raises(ConfigurationError, match="cannot open a store without creating"):
            open_storage("old://x", create=False)

    def test_a_callable_without_a_signature_is_told(self) -> None:
        class Factory:
            __signature__ = "unreadable"  # inspect.signature raises for it

            def __call__(self, url: str, **options: Any) -> Storage:
                return MemoryStorage()

        register("opaque", Factory())
        assert isinstance(open_storage("opaque://x", create=False), MemoryStorage)

    def test_memory_is_always_new(self) -> None:
        store = open_storage("memory://", create=False)
        assert store.latest_sequence("p-1") == 0

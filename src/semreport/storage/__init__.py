"""Storage adapters, chosen by URL scheme.

Built in: ``memory://`` and ``sqlite:///path/to/file.db`` (the embedded
default); ``postgresql://`` with the ``postgres`` extra. Third-party adapters
register a factory under the entry-point group ``semreport.storage``, named by
their scheme, or call :func:`register` at run time. A factory takes the URL and
keyword options and returns a :class:`~semreport.domain.Storage`.

Opening creates the storage if it does not exist (``create=True``, the
default). ``open_storage(url, create=False)`` opens only what exists: a factory
that declares a ``create`` parameter (as the built-in ones do) then raises
:class:`~semreport.StorageNotFound` for a missing store and creates nothing.

Example:
    >>> from semreport.storage import open_storage
    >>> store = open_storage("memory://")
    >>> store.latest_sequence("p-1")
    0
"""

from __future__ import annotations

import importlib
import inspect
import threading
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any, Final
from urllib.parse import urlsplit

import attrs

from semreport.domain import (
    ConfigurationError,
    MissingExtra,
    Storage,
    UnknownStorageScheme,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "StorageFactory",
    "open_storage",
    "register",
    "schemes",
]

ENTRY_POINT_GROUP: Final = "semreport.storage"
"""The entry-point group third-party storage adapters register under."""

StorageFactory = Callable[..., Storage]
"""Builds a storage from its URL and keyword options."""


@attrs.frozen
class _Builtin:
    target: str
    extra: str | None = None
    requires: tuple[str, ...] = ()


_BUILTIN: Final[dict[str, _Builtin]] = {
    "memory": _Builtin("semreport.storage.memory:open_memory"),
    "sqlite": _Builtin("semreport.storage.sqlite:open_sqlite"),
    "postgresql": _Builtin(
        "semreport.storage.postgres:open_postgres", "postgres", ("psycopg", "psycopg_pool")
    ),
    "postgres": _Builtin(
        "semreport.storage.postgres:open_postgres", "postgres", ("psycopg", "psycopg_pool")
    ),
}

_registered: dict[str, StorageFactory] = {}
_lock = threading.Lock()


def register(scheme: str, factory: StorageFactory) -> None:
    """Register ``factory`` for URLs of ``scheme`` (replacing an earlier registration)."""
    with _lock:
        _registered[scheme.lower()] = factory


def schemes() -> list[str]:
    """Return every scheme an adapter is available for, sorted."""
    found = set(_BUILTIN) | set(_registered)
    found.update(ep.name for ep in entry_points(group=ENTRY_POINT_GROUP))
    return sorted(found)


def _load(target: str) -> Any:
    module_name, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


def _factory(scheme: str) -> StorageFactory:
    with _lock:
        if scheme in _registered:
            return _registered[scheme]
    builtin = _BUILTIN.get(scheme)
    if builtin is not None:
        try:
            for requirement in builtin.requires:
                importlib.import_module(requirement)
            factory: StorageFactory = _load(builtin.target)
        except ImportError as exc:
            if builtin.extra is None:
                raise
            raise MissingExtra(
                f"the {scheme}:// adapter needs the {builtin.extra!r} extra "
                f"({exc.name or exc} is not installed): pip install 'semreport[{builtin.extra}]'"
            ) from exc
        return factory
    for ep in entry_points(group=ENTRY_POINT_GROUP, name=scheme):
        try:
            loaded: StorageFactory = ep.load()
        except ImportError as exc:
            raise MissingExtra(
                f"the {scheme}:// adapter from {ep.value!r} could not be imported: {exc}"
            ) from exc
        return loaded
    raise UnknownStorageScheme(
        f"no storage adapter for scheme {scheme!r}; available: {', '.join(schemes())}"
    )


def _takes_create(factory: StorageFactory) -> bool:
    """Whether ``factory`` accepts a ``create`` keyword (by name or through ``**options``)."""
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # a callable without a signature: assume it does
        return True
    return any(
        p.kind is inspect.Parameter.VAR_KEYWORD
        or (p.name == "create" and p.kind is not inspect.Parameter.POSITIONAL_ONLY)
        for p in parameters
    )


def open_storage(url: str, *, create: bool = True, **options: Any) -> Storage:
    """Open the storage a URL names.

    Args:
        url: ``memory://``, ``sqlite:///relative.db``, ``sqlite:////absolute.db``,
            ``postgresql://user@host/db`` or a scheme a plug-in registered.
        create: Create the storage if it does not exist (the default). With
            ``False`` a missing store raises :class:`~semreport.StorageNotFound`
            and nothing is created: what read-only tools want. The factory
            receives ``create=False``; with ``True`` it is called as before,
            without the keyword, so older plug-ins keep working.
        **options: Passed to the adapter's factory (e.g. ``clock``).

    Raises:
        UnknownStorageScheme: no adapter is registered for the scheme.
        MissingExtra: the adapter needs an extra that is not installed.
        ConfigurationError: the URL is not a URL at all, or ``create=False``
            for an adapter whose factory takes no ``create`` option.
        StorageNotFound: ``create=False`` and the storage does not exist.
    """
    if "://" not in str(url):
        raise ConfigurationError(
            f"a storage URL looks like 'scheme://...' (e.g. 'memory://', "
            f"'sqlite:///semreport.db'), got {url!r}"
        )
    scheme = urlsplit(url).scheme.lower()
    if not scheme:
        raise ConfigurationError(f"the storage URL {url!r} has no scheme")
    factory = _factory(scheme)
    if create:
        return factory(url, **options)
    if not _takes_create(factory):
        raise ConfigurationError(
            f"the {scheme}:// adapter cannot open a store without creating it "
            "(its factory takes no 'create' option)"
        )
    return factory(url, create=False, **options)

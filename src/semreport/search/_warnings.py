"""Warnings that explain an empty or thin result: names the project does not hold.

A filter on ``tags: ["Fire"]`` in a project whose tag is ``fire`` matches nothing,
and an empty page alone does not say why. Before ranking, the scorer compares
every name a request gives (tags, agents, numeric attributes, in filters,
preferences and ``near`` targets) with the names the project holds, and the
result carries a :class:`SearchWarning` for each one it does not hold, with the
closest names it does.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable, Mapping
from typing import Final

import attrs

__all__ = ["MAX_SUGGESTIONS", "SearchWarning", "unknown_names"]

MAX_SUGGESTIONS: Final = 3
"""At most this many close names are suggested per warning."""

_CUTOFF: Final = 0.6  # difflib's own default similarity cut-off


@attrs.frozen
class SearchWarning:
    """A name in the request that the project does not hold.

    Attributes:
        field: Where the name was given, e.g. ``filters.tags`` or ``near``.
        value: The name as given.
        kind: What the name should be: ``tag``, ``agent`` or ``attribute``.
        suggestions: The closest names the project holds (a name that differs
            only in case comes first), at most :data:`MAX_SUGGESTIONS`.
        message: One line for people, naming the value and the suggestions.
    """

    field: str
    value: str
    kind: str
    suggestions: tuple[str, ...] = ()
    message: str = ""


def unknown_names(
    field: str, kind: str, given: Iterable[str], known: Collection[str]
) -> list[SearchWarning]:
    """Warnings for each name in ``given`` that ``known`` does not hold, in sorted order.

    Names are compared exactly (they are case-sensitive everywhere in the
    search); a name held only in another case is suggested first, then the
    names :mod:`difflib` finds closest, compared without case.
    """
    if not isinstance(known, (set, frozenset, Mapping)):
        known = frozenset(known)
    missing = sorted({name for name in given if name not in known})
    if not missing:
        return []
    folded: dict[str, list[str]] = {}
    for name in sorted(known):
        folded.setdefault(name.casefold(), []).append(name)
    return [_warning(field, kind, name, folded) for name in missing]


def _warning(field: str, kind: str, name: str, folded: dict[str, list[str]]) -> SearchWarning:
    same_case = folded.get(name.casefold(), [])
    close = difflib.get_close_matches(name.casefold(), folded, n=MAX_SUGGESTIONS, cutoff=_CUTOFF)
    suggestions: list[str] = list(same_case)
    for key in close:
        suggestions.extend(other for other in folded[key] if other not in suggestions)
    suggestions = suggestions[:MAX_SUGGESTIONS]
    if same_case:
        message = (
            f"{field}: the project holds no {kind} {name!r}, only {_names(same_case)} "
            f"(names are case-sensitive)"
        )
    elif suggestions:
        message = f"{field}: the project holds no {kind} {name!r}; closest: {_names(suggestions)}"
    else:
        message = f"{field}: the project holds no {kind} {name!r}"
    return SearchWarning(
        field=field, value=name, kind=kind, suggestions=tuple(suggestions), message=message
    )


def _names(names: Iterable[str]) -> str:
    return ", ".join(repr(name) for name in names)

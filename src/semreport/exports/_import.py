"""Reading session files for an import: one JSON file, or every ``*.json`` in a directory."""

from __future__ import annotations

import json
import os
from pathlib import Path

import attrs

from semreport.domain import InvalidRequest, LegacySession
from semreport.exports._json import session_from_document
from semreport.exports._types import SessionImportProblem

__all__ = ["LoadedSessions", "load_session_files"]


@attrs.frozen
class LoadedSessions:
    """What reading the files gave: the well-formed sessions and the problems.

    Attributes:
        files: Every file read, in order.
        sessions: ``(file, session)`` for each file holding a valid session.
        problems: One entry per file that could not be read or is malformed.
    """

    files: tuple[str, ...]
    sessions: tuple[tuple[str, LegacySession], ...]
    problems: tuple[SessionImportProblem, ...]


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.iterdir() if p.suffix.lower() == ".json" and p.is_file())
    if path.is_file():
        return [path]
    raise InvalidRequest.at("$.path", f"{str(path)[:200]!r} is not a file or a directory")


def _load(file: Path) -> LegacySession:
    try:
        raw = file.read_bytes()
    except OSError as exc:
        raise InvalidRequest.at("$", f"cannot read the file: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidRequest.at("$", f"not UTF-8 text (byte {exc.start})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidRequest.at(
            "$", f"not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except RecursionError:
        raise InvalidRequest.at("$", "not JSON this library accepts: nested too deeply") from None
    return session_from_document(data)


def load_session_files(path: str | os.PathLike[str]) -> LoadedSessions:
    """Read one session file, or every ``*.json`` file directly inside a directory.

    Each file holds one session in the wire form: the ``semreport.session/1``
    export envelope or the plain session object. Files are read in name
    order; a directory's subdirectories and other files are ignored.

    Raises:
        InvalidRequest: ``path`` is neither a file nor a directory.
    """
    if not isinstance(path, str | os.PathLike):
        raise InvalidRequest.at("$.path", f"expected a path, got {type(path).__name__}")
    files = _files(Path(path))
    sessions: list[tuple[str, LegacySession]] = []
    problems: list[SessionImportProblem] = []
    for file in files:
        name = str(file)
        try:
            sessions.append((name, _load(file)))
        except InvalidRequest as exc:
            reason = "; ".join(str(error) for error in exc.errors) or exc.message
            problems.append(SessionImportProblem(name, exc.code, reason))
    return LoadedSessions(
        files=tuple(str(f) for f in files), sessions=tuple(sessions), problems=tuple(problems)
    )

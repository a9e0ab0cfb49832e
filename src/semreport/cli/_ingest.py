"""Reading decisions and sessions from files, checking them, and recording them in batches.

Every input is checked before anything is written: each bad line (or file)
is reported with its number (or name) and the reason, ids repeated in the
input or already stored are refused, and only then are the good records
written, each batch in one transaction through the facade.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Final

import attrs

from semreport.domain import (
    Decision,
    InvalidRequest,
    LegacySession,
    ProjectNotFound,
    SessionNotFound,
)
from semreport.exports import session_from_document
from semreport.service import SemReport
from semreport.wire import from_wire

__all__ = ["DECISION_SUFFIXES", "SESSION_SUFFIXES", "Ingest", "Problem", "Source", "plan"]

DECISION_SUFFIXES: Final = (".jsonl", ".ndjson")
"""File name endings read as JSON Lines of decisions."""
SESSION_SUFFIXES: Final = (".json",)
"""File name endings read as legacy sessions: a session, its export envelope, or an array."""

Progress = Callable[[int], None]
"""Called with a number of bytes read, to move a progress bar."""


@attrs.frozen
class Problem:
    """One bad input: where it is and why it was refused."""

    where: str
    reason: str

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"


@attrs.frozen
class Source:
    """One input file and what it holds."""

    path: Path
    kind: str  # "decisions" or "sessions"

    @property
    def size(self) -> int:
        """The file's size in bytes (0 for standard input)."""
        return 0 if str(self.path) == "-" else self.path.stat().st_size


def plan(paths: Sequence[Path], kind: str = "auto") -> list[Source]:
    """Turn the paths given on the command line into the files to read, in order.

    A directory contributes its ``*.jsonl``/``*.ndjson`` files (decisions) and
    ``*.json`` files (sessions), in its subdirectories too, sorted by path; ``-`` is standard input
    (decisions). ``kind`` forces every file to be read as ``decisions`` or
    ``sessions``.

    Raises:
        InvalidRequest: a path does not exist, or its kind cannot be told.
    """
    sources: list[Source] = []
    problems: list[str] = []
    for path in paths:
        if str(path) == "-":
            sources.append(Source(path, "sessions" if kind == "sessions" else "decisions"))
        elif path.is_dir():
            found = sorted(
                p
                for p in path.rglob("*")
                if p.is_file() and p.suffix.lower() in DECISION_SUFFIXES + SESSION_SUFFIXES
            )
            if not found:
                problems.append(f"{path}: the directory holds no .jsonl or .json file")
            sources.extend(Source(p, _kind_of(p, kind)) for p in found)
        elif path.is_file():
            detected = _kind_of(path, kind)
            if detected == "unknown":
                problems.append(
                    f"{path}: cannot tell decisions from sessions by the name; "
                    "use .jsonl for decisions, .json for sessions, or --kind"
                )
            sources.append(Source(path, detected))
        else:
            problems.append(f"{path}: no such file or directory")
    if problems:
        raise InvalidRequest.at("$.paths", "; ".join(problems))
    return sources


def _kind_of(path: Path, kind: str) -> str:
    if kind != "auto":
        return kind
    suffix = path.suffix.lower()
    if suffix in DECISION_SUFFIXES:
        return "decisions"
    if suffix in SESSION_SUFFIXES:
        return "sessions"
    return "unknown"


@attrs.frozen
class _Line:
    number: int
    size: int
    text: str | None  # None when the bytes are not UTF-8; ``error`` says why
    error: str = ""


def _lines(source: Source, stdin: Iterator[str] | None) -> Iterator[_Line]:
    """Yield each line of a decisions source with its number and size in bytes."""
    if str(source.path) == "-":
        assert stdin is not None
        for number, line in enumerate(stdin, start=1):
            yield _Line(number, len(line.encode("utf-8", "surrogatepass")), line)
        return
    with source.path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                yield _Line(number, len(raw), raw.decode("utf-8"))
            except UnicodeDecodeError as exc:
                yield _Line(number, len(raw), None, f"{exc.reason} at byte {exc.start}")


@attrs.define
class Ingest:
    """Checks and records what a set of sources holds.

    Attributes:
        sr: The facade to record through.
        batch_size: How many records go into one transaction.
    """

    sr: SemReport
    batch_size: int = 500
    decisions: list[Decision] = attrs.field(factory=list)
    sessions: list[LegacySession] = attrs.field(factory=list)
    problems: list[Problem] = attrs.field(factory=list)
    recorded_decisions: int = 0
    recorded_sessions: int = 0
    _decision_origin: dict[tuple[str, str], str] = attrs.field(factory=dict)
    _session_origin: dict[str, str] = attrs.field(factory=dict)

    def read(
        self, source: Source, progress: Progress | None = None, stdin: Iterator[str] | None = None
    ) -> None:
        """Read and check one source, keeping the good records and the problems."""
        if source.kind == "decisions":
            self._read_decisions(source, progress, stdin)
        else:
            self._read_sessions(source, progress, stdin)

    def _read_decisions(
        self, source: Source, progress: Progress | None, stdin: Iterator[str] | None
    ) -> None:
        name = "stdin" if str(source.path) == "-" else source.path.name
        for line in _lines(source, stdin):
            if progress is not None:
                progress(line.size)
            where = f"{name} line {line.number}"
            if line.text is None:
                self.problems.append(Problem(where, f"not UTF-8 text ({line.error})"))
                continue
            if not line.text.strip():
                continue
            decision = self._parse(where, line.text, Decision)
            if decision is None:
                continue
            key = (decision.project_id, decision.id)
            if key in self._decision_origin:
                self.problems.append(
                    Problem(
                        where,
                        f"decision {decision.id!r} repeats {self._decision_origin[key]}",
                    )
                )
                continue
            self._decision_origin[key] = where
            self.decisions.append(decision)

    def _read_sessions(
        self, source: Source, progress: Progress | None, stdin: Iterator[str] | None
    ) -> None:
        name = "stdin" if str(source.path) == "-" else source.path.name
        if str(source.path) == "-":
            assert stdin is not None
            raw = "".join(stdin).encode("utf-8", "surrogatepass")
        else:
            raw = source.path.read_bytes()
        if progress is not None:
            progress(len(raw))
        try:
            data = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            self.problems.append(Problem(name, f"not UTF-8 text ({exc.reason} at {exc.start})"))
            return
        except json.JSONDecodeError as exc:
            self.problems.append(Problem(name, f"not JSON: {exc.msg} (line {exc.lineno})"))
            return
        items = data if isinstance(data, list) else [data]
        for position, item in enumerate(items):
            where = f"{name}[{position}]" if isinstance(data, list) else name
            session = self._session(where, item)
            if session is None:
                continue
            if session.id in self._session_origin:
                self.problems.append(
                    Problem(
                        where, f"session {session.id!r} repeats {self._session_origin[session.id]}"
                    )
                )
                continue
            self._session_origin[session.id] = where
            self.sessions.append(session)

    def _session(self, where: str, data: object) -> LegacySession | None:
        # The export envelope ({"schema": "semreport.session/1", ...}) or a plain session.
        if not isinstance(data, dict):
            self.problems.append(
                Problem(where, f"expected a JSON object, got {type(data).__name__}")
            )
            return None
        try:
            return session_from_document(data)
        except InvalidRequest as exc:
            self.problems.append(Problem(where, "; ".join(str(e) for e in exc.errors)))
            return None

    def _parse(self, where: str, text: str, cls: type[Any]) -> Any:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            self.problems.append(Problem(where, f"not JSON: {exc.msg} (column {exc.colno})"))
            return None
        return self._convert(where, data, cls)

    def _convert(self, where: str, data: object, cls: type[Any]) -> Any:
        if not isinstance(data, dict):
            self.problems.append(
                Problem(where, f"expected a JSON object, got {type(data).__name__}")
            )
            return None
        try:
            return from_wire(data, cls)
        except InvalidRequest as exc:
            reason = "; ".join(str(error) for error in exc.errors)
            self.problems.append(Problem(where, reason))
            return None

    def refuse_stored(self) -> None:
        """Move records whose ids are already stored to the problems."""
        stored: dict[str, set[str]] = {}
        for project_id in sorted({d.project_id for d in self.decisions}):
            try:
                stored[project_id] = {d.id for d in self.sr.decisions(project_id)}
            except ProjectNotFound:  # pragma: no cover - depends on the adapter
                stored[project_id] = set()
        fresh: list[Decision] = []
        for decision in self.decisions:
            if decision.id in stored[decision.project_id]:
                self.problems.append(
                    Problem(
                        self._decision_origin[(decision.project_id, decision.id)],
                        f"decision {decision.id!r} is already recorded in project "
                        f"{decision.project_id!r}",
                    )
                )
            else:
                fresh.append(decision)
        self.decisions = fresh
        kept: list[LegacySession] = []
        for session in self.sessions:
            try:
                self.sr.session(session.id)
            except SessionNotFound:
                kept.append(session)
            else:
                self.problems.append(
                    Problem(
                        self._session_origin[session.id],
                        f"session {session.id!r} is already recorded",
                    )
                )
        self.sessions = kept

    def record(self, progress: Progress | None = None) -> None:
        """Record the good decisions, then the good sessions, in batches.

        Each batch is one transaction: if the storage refuses one, the batches
        before it stay recorded (:attr:`recorded_decisions` and
        :attr:`recorded_sessions` count them) and nothing of it or after it is
        written.
        """
        for start in range(0, len(self.decisions), self.batch_size):
            batch = self.decisions[start : start + self.batch_size]
            self.recorded_decisions += len(self.sr.record(batch))
            if progress is not None:
                progress(len(batch))
        for start in range(0, len(self.sessions), self.batch_size):
            sessions = self.sessions[start : start + self.batch_size]
            self.recorded_sessions += len(self.sr.record_sessions(sessions))
            if progress is not None:
                progress(len(sessions))

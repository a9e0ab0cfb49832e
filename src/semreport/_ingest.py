"""Ingest: read decisions and legacy sessions from files, check them, record them in batches.

One pipeline serves :meth:`semreport.SemReport.ingest`,
:meth:`semreport.SemReport.import_sessions` and ``semreport ingest``.
Everything is read and checked before anything is written: each bad line (or
file, or array item) becomes an :class:`IngestProblem` naming where it is and
why, ids repeated in the input or already stored are caught, and only then are
the good records written, each batch in one transaction.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Final

import attrs

from semreport.domain import (
    Decision,
    DecisionAlreadyRecorded,
    FieldError,
    Forbidden,
    InvalidRequest,
    LegacySession,
    SessionAlreadyRecorded,
)
from semreport.domain._limits import MAX_BATCH_SESSIONS
from semreport.exports import session_from_document
from semreport.wire import from_wire, to_wire

__all__ = [
    "DECISION_SUFFIXES",
    "SESSION_SUFFIXES",
    "IngestProblem",
    "IngestProgress",
    "IngestResult",
    "IngestSource",
    "plan_sources",
]

DECISION_SUFFIXES: Final = (".jsonl", ".ndjson")
"""File name endings read as JSON Lines of decisions."""
SESSION_SUFFIXES: Final = (".json",)
"""File name endings read as legacy sessions: a session, its export envelope, or an array."""

_KINDS: Final = ("auto", "decisions", "sessions")
_STDIN: Final = "-"


@attrs.frozen
class IngestProblem:
    """One input that was not recorded: where it is, its error code and why.

    Attributes:
        source: The file as given or found in a directory (``-`` for standard input).
        code: The error code: ``INVALID_REQUEST`` (malformed), ``FORBIDDEN``
            (no grant for the record's project), ``DECISION_ALREADY_RECORDED``
            or ``SESSION_ALREADY_RECORDED`` (repeated in the input, already
            stored, or stored with other content).
        reason: What is wrong; for malformed records every bad field with its path.
        line: The line of a decisions file (from 1), if the problem is one line.
        item: The position in a sessions file holding an array, if it is one item.
    """

    source: str
    code: str
    reason: str
    line: int | None = None
    item: int | None = None

    @property
    def where(self) -> str:
        """The file's name with the line or array item: ``d.jsonl line 4``, ``s.json[1]``."""
        name = "stdin" if self.source == _STDIN else Path(self.source).name
        if self.line is not None:
            return f"{name} line {self.line}"
        if self.item is not None:
            return f"{name}[{self.item}]"
        return name

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"


@attrs.frozen
class IngestProgress:
    """How far an ingest has come, for a progress bar; every count is of records.

    Attributes:
        stage: ``reading`` (one source), ``checking`` (ids against the store)
            or ``recording``.
        what: The source's name while reading; ``decisions`` or ``sessions``
            while recording; ``stored ids`` while checking.
        done: Records (lines, sessions) done so far in this stage and source.
        total: How many there are, when known (standard input: unknown).
    """

    stage: str
    what: str
    done: int
    total: int | None


@attrs.frozen
class IngestResult:
    """What an ingest did.

    Attributes:
        files: Every source read, in order.
        recorded_decisions: How many decisions were written.
        recorded_sessions: The ids of the sessions written, in input order.
        valid_decisions: Decisions that passed every check (written unless
            ``dry_run`` or ``all_or_nothing`` with problems).
        valid_sessions: Sessions that passed every check.
        existing_decisions: Decisions already stored with the same content
            (counted, not written again; only with ``skip_existing``).
        existing_sessions: Sessions already stored with the same content.
        problems: Every input not recorded, with where and why, in input order.
        written: Whether the valid records were written.
        projects: The projects of the valid decisions and sessions, sorted.
    """

    files: tuple[str, ...] = ()
    recorded_decisions: int = 0
    recorded_sessions: tuple[str, ...] = ()
    valid_decisions: int = 0
    valid_sessions: int = 0
    existing_decisions: int = 0
    existing_sessions: int = 0
    problems: tuple[IngestProblem, ...] = ()
    written: bool = True
    projects: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether every input was recorded (or already stored, with ``skip_existing``)."""
        return not self.problems


@attrs.frozen
class IngestSource:
    """One input to read and what it holds (``decisions`` or ``sessions``)."""

    path: str
    kind: str


def plan_sources(
    paths: Sequence[str | os.PathLike[str]], kind: str = "auto", *, recursive: bool = True
) -> list[IngestSource]:
    """Turn paths into the sources to read, in order.

    A directory contributes its ``*.jsonl``/``*.ndjson`` files (decisions)
    and ``*.json`` files (sessions), sorted by path, in its subdirectories too
    unless ``recursive`` is false; with ``kind`` forced, only the files of that
    kind. A directory holding no such file is a problem (a mistyped path, most
    likely). ``-`` is standard input. ``kind`` forces every file to be read as
    ``decisions`` or ``sessions``.

    Raises:
        InvalidRequest: a path is not a path, does not exist, or its kind cannot be told.
    """
    if kind not in _KINDS:
        raise InvalidRequest.at("$.kind", f"expected one of {', '.join(_KINDS)}, got {kind!r}")
    if isinstance(paths, str | bytes | os.PathLike) or not isinstance(paths, Iterable):
        raise InvalidRequest.at("$.paths", "expected a list of paths")
    sources: list[IngestSource] = []
    problems: list[tuple[str, str]] = []
    listed: list[object] = list(paths)
    for position, given in enumerate(listed):
        where = f"$.paths[{position}]"
        if not isinstance(given, str | os.PathLike):
            problems.append((where, f"expected a path, got {type(given).__name__}"))
            continue
        text = os.fspath(given)
        if text == _STDIN:
            sources.append(IngestSource(_STDIN, "sessions" if kind == "sessions" else "decisions"))
            continue
        path = Path(text)
        if path.is_dir():
            found = _directory(path, kind, recursive)
            if not found:
                wanted = {"decisions": ".jsonl", "sessions": ".json"}.get(kind, ".jsonl or .json")
                problems.append((where, f"{text[:200]}: the directory holds no {wanted} file"))
            sources.extend(found)
        elif path.is_file():
            detected = _kind_of(path, kind)
            if detected is None:
                problems.append(
                    (
                        where,
                        f"{text}: cannot tell decisions from sessions by the name; "
                        "use .jsonl for decisions, .json for sessions, or give the kind",
                    )
                )
            else:
                sources.append(IngestSource(text, detected))
        else:
            problems.append((where, f"{text[:200]}: no such file or directory"))
    if problems:
        raise InvalidRequest([FieldError(path, reason) for path, reason in problems])
    return sources


def _directory(path: Path, kind: str, recursive: bool) -> list[IngestSource]:
    suffixes = {
        "decisions": DECISION_SUFFIXES,
        "sessions": SESSION_SUFFIXES,
    }.get(kind, DECISION_SUFFIXES + SESSION_SUFFIXES)
    found = sorted(
        p
        for p in (path.rglob("*") if recursive else path.iterdir())
        if p.suffix.lower() in suffixes and p.is_file()
    )
    return [IngestSource(str(p), _kind_of(p, kind) or "sessions") for p in found]


def _kind_of(path: Path, kind: str) -> str | None:
    if kind != "auto":
        return kind
    suffix = path.suffix.lower()
    if suffix in DECISION_SUFFIXES:
        return "decisions"
    if suffix in SESSION_SUFFIXES:
        return "sessions"
    return None


def _count_lines(path: str) -> int | None:
    """How many lines a file holds (a last line without a newline counts); unknown if unreadable."""
    count = 0
    last = b"\n"
    try:
        with Path(path).open("rb") as handle:
            while chunk := handle.read(1 << 20):
                count += chunk.count(b"\n")
                last = chunk[-1:]
    except OSError:
        return None  # reading it reports why
    return count + (0 if last == b"\n" else 1)


def _json_kind(value: object) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "null" if value is None else type(value).__name__


def _reason(exc: InvalidRequest) -> str:
    return "; ".join(str(error) for error in exc.errors) or exc.message


Progress = Callable[[IngestProgress], None]


@attrs.define
class Pipeline:
    """Reads and checks sources, then records the good records; used by the facade only.

    ``may_write(project_id)`` says whether the caller may record into a
    project; ``check_decision`` gives the reason a decision breaks the request
    limits (``None`` when it keeps them); ``stored_decision`` and
    ``stored_session`` look a record up (``None`` when absent);
    ``record_decisions`` and ``record_sessions`` write one batch.
    """

    may_write: Callable[[str], bool]
    check_decision: Callable[[Decision], str | None]
    stored_decision: Callable[[str, str], Decision | None]
    stored_session: Callable[[str], LegacySession | None]
    record_decisions: Callable[[list[Decision]], int]
    record_sessions: Callable[[list[LegacySession]], int]
    forbidden: str
    skip_existing: bool = False
    progress: Progress | None = None
    decisions: list[tuple[Decision, IngestProblem]] = attrs.field(factory=list)
    sessions: list[tuple[LegacySession, IngestProblem]] = attrs.field(factory=list)
    problems: list[IngestProblem] = attrs.field(factory=list)
    existing_decisions: int = 0
    existing_sessions: int = 0
    _decision_origin: dict[tuple[str, str], str] = attrs.field(factory=dict)
    _session_origin: dict[str, str] = attrs.field(factory=dict)

    def _tell(self, stage: str, what: str, done: int, total: int | None) -> None:
        if self.progress is not None:
            self.progress(IngestProgress(stage, what, done, total))

    # -- reading -----------------------------------------------------------------

    def read(self, source: IngestSource, stdin: Iterable[str] | None) -> None:
        """Read and check one source, keeping the good records and the problems."""
        if source.kind == "decisions":
            self._read_decisions(source, stdin)
        else:
            self._read_sessions(source, stdin)

    def _lines(
        self, source: IngestSource, stdin: Iterable[str] | None
    ) -> Iterator[tuple[int, str | None, str]]:
        if source.path == _STDIN:
            for number, line in enumerate(stdin or (), start=1):
                yield number, line, ""
            return
        try:
            handle = Path(source.path).open("rb")  # noqa: SIM115 - closed by the with below
        except OSError as exc:
            self.problems.append(
                IngestProblem(
                    source.path, InvalidRequest.code, f"cannot read: {exc.strerror or exc}"
                )
            )
            return
        with handle:
            for number, raw in enumerate(handle, start=1):
                try:
                    yield number, raw.decode("utf-8"), ""
                except UnicodeDecodeError as exc:
                    yield number, None, f"{exc.reason} at byte {exc.start}"

    def _read_decisions(self, source: IngestSource, stdin: Iterable[str] | None) -> None:
        name = "stdin" if source.path == _STDIN else Path(source.path).name
        total = None if source.path == _STDIN else _count_lines(source.path)
        done = 0
        for number, text, error in self._lines(source, stdin):
            done += 1
            if done % 256 == 0:
                self._tell("reading", name, done, total)
            here = IngestProblem(source.path, InvalidRequest.code, "", line=number)
            if text is None:
                self.problems.append(attrs.evolve(here, reason=f"not UTF-8 text ({error})"))
                continue
            if not text.strip():
                continue
            decision = self._decision(here, text)
            if decision is None:
                continue
            if not self.may_write(decision.project_id):
                self.problems.append(attrs.evolve(here, code=Forbidden.code, reason=self.forbidden))
                continue
            key = (decision.project_id, decision.id)
            if key in self._decision_origin:
                self.problems.append(
                    attrs.evolve(
                        here,
                        code=DecisionAlreadyRecorded.code,
                        reason=f"decision {decision.id!r} repeats {self._decision_origin[key]}",
                    )
                )
                continue
            self._decision_origin[key] = here.where
            self.decisions.append((decision, here))
        self._tell("reading", name, done, total if total is not None else done)

    def _decision(self, here: IngestProblem, text: str) -> Decision | None:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            self.problems.append(
                attrs.evolve(here, reason=f"not JSON: {exc.msg} (column {exc.colno})")
            )
            return None
        except RecursionError:
            self.problems.append(attrs.evolve(here, reason="not JSON: nested too deeply"))
            return None
        if not isinstance(data, dict):
            self.problems.append(
                attrs.evolve(here, reason=f"expected a JSON object, got {_json_kind(data)}")
            )
            return None
        try:
            decision: Decision = from_wire(data, Decision)
        except InvalidRequest as exc:
            self.problems.append(attrs.evolve(here, reason=_reason(exc)))
            return None
        refused = self.check_decision(decision)
        if refused is not None:
            self.problems.append(attrs.evolve(here, reason=refused))
            return None
        return decision

    def _read_sessions(self, source: IngestSource, stdin: Iterable[str] | None) -> None:
        name = "stdin" if source.path == _STDIN else Path(source.path).name
        here = IngestProblem(source.path, InvalidRequest.code, "")
        data = self._document(here, source, stdin)
        if data is None:
            self._tell("reading", name, 0, 0)
            return
        items: list[tuple[int | None, Any]] = (
            list(enumerate(data)) if isinstance(data, list) else [(None, data)]
        )
        for position, item in items:
            at = attrs.evolve(here, item=position)
            session = self._session(at, item, in_array=position is not None)
            if session is None:
                continue
            if not self.may_write(session.project_id):
                self.problems.append(attrs.evolve(at, code=Forbidden.code, reason=self.forbidden))
                continue
            if session.id in self._session_origin:
                self.problems.append(
                    attrs.evolve(
                        at,
                        code=SessionAlreadyRecorded.code,
                        reason=f"session {session.id!r} repeats {self._session_origin[session.id]}",
                    )
                )
                continue
            self._session_origin[session.id] = at.where
            self.sessions.append((session, at))
        self._tell("reading", name, len(items), len(items))

    def _document(
        self, here: IngestProblem, source: IngestSource, stdin: Iterable[str] | None
    ) -> Any:
        if source.path == _STDIN:
            raw = "".join(stdin or ()).encode("utf-8", "surrogatepass")
        else:
            try:
                raw = Path(source.path).read_bytes()
            except OSError as exc:
                self.problems.append(
                    attrs.evolve(here, reason=f"$: cannot read the file: {exc.strerror or exc}")
                )
                return None
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            self.problems.append(
                attrs.evolve(here, reason=f"not UTF-8 text ({exc.reason} at byte {exc.start})")
            )
            return None
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            self.problems.append(
                attrs.evolve(
                    here, reason=f"not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
                )
            )
        except RecursionError:
            self.problems.append(
                attrs.evolve(here, reason="not JSON this library accepts: nested too deeply")
            )
        return None

    def _session(self, at: IngestProblem, item: object, *, in_array: bool) -> LegacySession | None:
        if in_array and not isinstance(item, dict):
            self.problems.append(
                attrs.evolve(
                    at,
                    reason="an array item must be a session (a JSON object), "
                    f"got {_json_kind(item)}",
                )
            )
            return None
        try:
            return session_from_document(item)
        except InvalidRequest as exc:
            self.problems.append(attrs.evolve(at, reason=_reason(exc)))
            return None

    # -- checking against the store ------------------------------------------------

    def check_stored(self) -> None:
        """Move records already stored out of the batch: counted if equal, else problems."""
        total = len(self.decisions) + len(self.sessions)
        self._tell("checking", "stored ids", 0, total)
        fresh: list[tuple[Decision, IngestProblem]] = []
        for decision, here in self.decisions:
            stored = self.stored_decision(decision.project_id, decision.id)
            if stored is None:
                fresh.append((decision, here))
            elif self.skip_existing and _same_decision(stored, decision):
                self.existing_decisions += 1
            else:
                detail = " with other content" if self.skip_existing else ""
                self.problems.append(
                    attrs.evolve(
                        here,
                        code=DecisionAlreadyRecorded.code,
                        reason=f"decision {decision.id!r} is already recorded in project "
                        f"{decision.project_id!r}{detail}",
                    )
                )
        self.decisions = fresh
        kept: list[tuple[LegacySession, IngestProblem]] = []
        for session, at in self.sessions:
            found = self.stored_session(session.id)
            if found is None:
                kept.append((session, at))
            elif self.skip_existing and to_wire(found) == to_wire(session):
                self.existing_sessions += 1
            else:
                detail = " with other content" if self.skip_existing else ""
                self.problems.append(
                    attrs.evolve(
                        at,
                        code=SessionAlreadyRecorded.code,
                        reason=f"session {session.id!r} is already recorded in the store{detail}",
                    )
                )
        self.sessions = kept
        self._tell("checking", "stored ids", total, total)

    # -- recording -----------------------------------------------------------------

    def record(self, batch_size: int) -> tuple[int, list[str]]:
        """Record the good decisions, then the good sessions, in batches.

        Each batch is one transaction: if the storage refuses one, the batches
        before it stay recorded and the error propagates.
        """
        decisions = [d for d, _ in self.decisions]
        sessions = [s for s, _ in self.sessions]
        recorded = 0
        self._tell("recording", "decisions", 0, len(decisions))
        for start in range(0, len(decisions), batch_size):
            recorded += self.record_decisions(decisions[start : start + batch_size])
            self._tell("recording", "decisions", recorded, len(decisions))
        ids: list[str] = []
        self._tell("recording", "sessions", 0, len(sessions))
        step = min(batch_size, MAX_BATCH_SESSIONS)
        for start in range(0, len(sessions), step):
            batch = sessions[start : start + step]
            self.record_sessions(batch)
            ids.extend(s.id for s in batch)
            self._tell("recording", "sessions", len(ids), len(sessions))
        return recorded, ids


def _same_decision(stored: Decision, given: Decision) -> bool:
    """Whether two decisions hold the same content (what the log assigns aside)."""
    ignore = {"sequence", "recorded_at"}
    left = {k: v for k, v in to_wire(stored).items() if k not in ignore}
    right = {k: v for k, v in to_wire(given).items() if k not in ignore}
    return left == right

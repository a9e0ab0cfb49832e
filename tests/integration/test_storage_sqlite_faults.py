"""SQLite under faults: racing creators, a full disk, odd files, read-only places, bit flips.

Every test here works on real files. Issue 11 found each of these: processes
opening one new file at once failed ("belongs to another application",
"locked"), a full disk surfaced as a raw ``sqlite3.OperationalError``, an
empty file was silently reset, refusing a newer schema checkpointed its WAL
into the main file, a file in a read-only directory could not be read, and a
bit flipped in a stored record silently changed a decision.
"""

from __future__ import annotations

import contextlib
import encodings.utf_16_be  # noqa: F401 - see _as_unprivileged
import hashlib
import multiprocessing
import os
import pickle
import random
import shutil
import sqlite3
import stat
import tempfile
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import pytest

import semreport
from semreport.canonical import record_sha256
from semreport.domain import (
    CorruptStorage,
    Decision,
    DecisionNotFound,
    Evidence,
    IncompatibleSchema,
    LegacySession,
    Link,
    StorageError,
    StorageNotFound,
)
from semreport.storage import open_storage
from semreport.storage.sqlite import SCHEMA_VERSION, SQLiteStorage, open_sqlite
from semreport.testing import ManualClock

T = TypeVar("T")

_AT = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _url(path: Path | str) -> str:
    return f"sqlite:///{path}"


def _decision(n: int, project_id: str = "p-1") -> Decision:
    # Whole-number floats among the attributes: those records are stored in their
    # type-keeping form and checked by canonicalising them again.
    return Decision(
        id=f"d-{n}",
        project_id=project_id,
        title=f"Decision {n}: fire doors for core {n % 3}",
        statement=f"Use an EI 60 door set, option {n}, at every landing of the stair core",
        agent=f"agent-{n % 4}",
        rationale="Approved Document B, table B3, asks for 60 minutes" if n % 2 else "",
        domain=("regulation", "material", "cost", "lifecycle")[n % 4],
        status=("proposed", "accepted")[n % 2],
        tags={"fire", f"t{n % 5}"},
        attributes={"cost_eur": 1250.0 + n if n % 3 == 0 else 1250.5 + n, "doors": n},
        evidence=[Evidence("regulation", "ADB B3", "Approved Document B", "p.12", "shall")],
        links=[Link("relates_to", f"d-{n + 1}")],
        elements={f"door-{n}"},
    )


OPENINGS = pytest.mark.parametrize(
    "options", [{}, {"create": False}], ids=["by-default", "create-false"]
)
"""Both ways of opening an existing file: the default (which creates) and ``create=False``."""


def _digest(path: Path) -> dict[str, str]:
    """Hash a database file and its -wal (absent ones are noted)."""
    out = {}
    for suffix in ("", "-wal"):
        candidate = Path(f"{path}{suffix}")
        out[suffix] = (
            hashlib.sha256(candidate.read_bytes()).hexdigest() if candidate.exists() else "absent"
        )
    return out


# -- several processes opening one new file ----------------------------------------


def _open_rounds(directory: str, rounds: int, worker: int, barrier: Any, results: Any) -> None:
    """Open (and append to) a new file per round, all workers at the same moment."""
    failures: list[str] = []
    for round_ in range(rounds):
        barrier.wait(timeout=120)  # every worker opens this round's new file at once
        try:
            store = open_sqlite(_url(Path(directory) / f"round-{round_}.db"))
            try:
                store.record([_decision(worker)])
            finally:
                store.close()
        except Exception as exc:  # noqa: BLE001 - the test reports every failure
            failures.append(f"round {round_}: {type(exc).__name__}: {exc}")
    results.put((worker, failures))


class TestManyProcessesCreatingOneFile:
    """Eight processes open one new file at the same moment, round after round: all succeed."""

    WORKERS = 8
    ROUNDS = 40

    def test_every_open_succeeds_and_the_file_is_whole(self, tmp_path: Path) -> None:
        context = multiprocessing.get_context("spawn")
        barrier = context.Barrier(self.WORKERS)
        results = context.Queue()
        workers = [
            context.Process(
                target=_open_rounds, args=(str(tmp_path), self.ROUNDS, n, barrier, results)
            )
            for n in range(self.WORKERS)
        ]
        for process in workers:
            process.start()
        reports = dict(results.get(timeout=600) for _ in workers)
        for process in workers:
            process.join(timeout=60)
        assert [p.exitcode for p in workers] == [0] * self.WORKERS
        failures = [line for lines in reports.values() for line in lines]
        assert failures == []
        for round_ in range(self.ROUNDS):
            store = open_sqlite(_url(tmp_path / f"round-{round_}.db"), create=False)
            stored = list(store.decisions("p-1"))
            assert [d.sequence for d in stored] == list(range(1, self.WORKERS + 1))
            assert sorted(d.id for d in stored) == sorted(f"d-{n}" for n in range(self.WORKERS))
            store.close()
        # No half-made database was left under a temporary name.
        assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".creating")] == []


class TestCreatingAFile:
    """A new file appears whole, with the permissions SQLite would give it."""

    def test_no_temporary_file_is_left_and_the_mode_follows_the_umask(self, tmp_path: Path) -> None:
        mask = os.umask(0o022)
        try:
            open_sqlite(_url(tmp_path / "new.db")).close()
        finally:
            os.umask(mask)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["new.db"]
        assert stat.S_IMODE((tmp_path / "new.db").stat().st_mode) == 0o644

    def test_without_hard_links_the_file_is_created_in_place(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        def no_links(_source: str, _target: str) -> None:
            raise PermissionError(1, "Operation not permitted")

        monkeypatch.setattr(os, "link", no_links)
        store = open_sqlite(_url(tmp_path / "new.db"))
        assert store.schema_version == SCHEMA_VERSION
        assert store.record([_decision(1)])[0].sequence == 1
        store.close()
        assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".creating")] == []

    def test_a_directory_that_cannot_be_written_is_a_storage_error(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        real_open = os.open

        def refusing_open(path: str, flags: int, mode: int = 0o777) -> int:
            if flags & os.O_CREAT:
                raise PermissionError(13, "Permission denied", path)
            return real_open(path, flags, mode)

        monkeypatch.setattr(os, "open", refusing_open)
        with pytest.raises(StorageError, match=r"cannot create the database.*Permission denied"):
            open_sqlite(_url(tmp_path / "new.db"))
        assert list(tmp_path.iterdir()) == []


# -- a full disk -----------------------------------------------------------------------


class TestAFullDisk:
    """A batch that does not fit is a StorageError saying the disk is full; nothing half-written.

    SQLite reports a full disk and a database at its page limit alike
    (``SQLITE_FULL``, the same code path). The page limit is set on the
    store's own connection, so the disk fills at an exact, repeatable point
    in the middle of a batch.
    """

    def _nearly_full(self, tmp_path: Path) -> tuple[SQLiteStorage, list[Decision]]:
        store = open_sqlite(_url(tmp_path / "x.db"), clock=ManualClock())
        kept = store.record([_decision(n) for n in range(20)])
        pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
        store._conn.execute(f"PRAGMA max_page_count = {pages + 4}")
        return store, kept

    def test_a_decision_batch(self, tmp_path: Path) -> None:
        store, kept = self._nearly_full(tmp_path)
        with pytest.raises(StorageError, match="the disk is full") as caught:
            store.record([_decision(n) for n in range(100, 400)])
        assert not isinstance(caught.value, CorruptStorage)
        assert list(store.decisions("p-1")) == kept
        # The store still works once there is room again, with no sequence used up.
        store._conn.execute("PRAGMA max_page_count = 1073741823")
        assert store.record([_decision(100)])[0].sequence == 21
        store.close()

    def test_a_session_batch(self, tmp_path: Path) -> None:
        store, _kept = self._nearly_full(tmp_path)
        sessions = [LegacySession(f"s-{n}", "p-1", "Session " + "x" * 4000, _AT) for n in range(60)]
        with pytest.raises(StorageError, match="the disk is full"):
            store.record_sessions(sessions)
        assert list(store.sessions("p-1")) == []
        store.close()


# -- odd files -------------------------------------------------------------------------


def _database_with_a_live_log(path: Path, user_version: int) -> None:
    """Leave ``path`` as a crashed writer would: records (and the version) only in its WAL."""
    writer_dir = path.parent / "writer"
    writer_dir.mkdir()
    source = writer_dir / path.name
    store = open_sqlite(_url(source))
    store.record([_decision(n) for n in range(5)])
    conn = sqlite3.connect(source, isolation_level=None)
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute(f"PRAGMA user_version = {user_version}")
    # Copied while both connections are open: the last transactions live in the -wal only.
    shutil.copyfile(source, path)
    shutil.copyfile(f"{source}-wal", f"{path}-wal")
    conn.close()
    store.close()


class TestARefusedNewerSchema:
    """Refusing a newer schema changes neither the main file nor its write-ahead log."""

    @OPENINGS
    def test_main_file_and_wal_stay_byte_for_byte(
        self, tmp_path: Path, options: dict[str, Any]
    ) -> None:
        path = tmp_path / "newer.db"
        _database_with_a_live_log(path, SCHEMA_VERSION + 1)
        before = _digest(path)
        assert before["-wal"] != "absent"
        with pytest.raises(IncompatibleSchema, match="newer"):
            open_sqlite(_url(path), **options)
        with pytest.raises(IncompatibleSchema):
            semreport.open(_url(path), **options)
        assert _digest(path) == before

    def test_a_live_log_of_a_current_file_is_read(self, tmp_path: Path) -> None:
        path = tmp_path / "crashed.db"
        _database_with_a_live_log(path, SCHEMA_VERSION)
        store = open_sqlite(_url(path), create=False)
        assert [d.id for d in store.decisions("p-1")] == [f"d-{n}" for n in range(5)]
        store.close()


class TestAMissingFile:
    """``create=False`` never makes a file: a missing one is StorageNotFound naming it."""

    @pytest.mark.parametrize(
        "opener",
        [
            lambda url: open_sqlite(url, create=False),
            lambda url: open_storage(url, create=False),
            lambda url: semreport.open(url, create=False),
        ],
        ids=["adapter", "registry", "facade"],
    )
    def test_nothing_is_left_behind(self, tmp_path: Path, opener: Callable[[str], Any]) -> None:
        path = tmp_path / "typo.db"
        with pytest.raises(StorageNotFound, match=r"typo\.db"):
            opener(_url(path))
        assert list(tmp_path.iterdir()) == []

    def test_a_missing_directory_is_not_found_either(self, tmp_path: Path) -> None:
        with pytest.raises(StorageNotFound, match="directory does not exist"):
            open_sqlite(_url(tmp_path / "nowhere" / "x.db"), create=False)
        assert list(tmp_path.iterdir()) == []

    def test_an_existing_file_opens_and_creating_stays_the_default(self, tmp_path: Path) -> None:
        path = tmp_path / "x.db"
        with semreport.open(_url(path)) as sr:  # the default creates it
            sr.record([_decision(1)])
        with semreport.open(_url(path), create=False) as sr:
            assert [d.id for d in sr.decisions("p-1")] == ["d-1"]
            sr.record([_decision(2)])  # create=False does not mean read-only
        assert open_sqlite("sqlite:///:memory:", create=False).latest_sequence("p-1") == 0


# -- a read-only directory ------------------------------------------------------------------


def _as_unprivileged(work: Callable[[], T]) -> T:
    """Run ``work`` where the file system's permissions apply, and return (or raise) its result.

    A privileged user (root, or one with ``CAP_DAC_OVERRIDE``) ignores a
    directory's permissions; then ``work`` runs in a forked child that has
    given up its privileges (user and group ``nobody``), and its answer comes
    back pickled. Everything ``work`` needs is imported before the fork: the
    child may not be allowed to read the interpreter's own files (this module
    imports the codec that report canonicalisation loads lazily for that reason).
    """
    if os.geteuid() != 0:
        return work()
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe and exits
        os.close(reader)
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            answer: tuple[bool, Any] = (True, work())
        except BaseException as exc:  # noqa: BLE001 - the parent re-raises it
            answer = (False, exc)
        with os.fdopen(writer, "wb") as out:
            pickle.dump(answer, out)
        os._exit(0)
    os.close(writer)
    with os.fdopen(reader, "rb") as incoming:
        data = incoming.read()
    os.waitpid(pid, 0)
    ok, value = pickle.loads(data)
    if not ok:
        raise value
    return value  # type: ignore[no-any-return]


@pytest.fixture
def read_only_directory() -> Iterator[Path]:
    """A directory holding a semreport database, then made read-only (files and directory).

    It is made under the system's temporary directory, which every user may
    enter, so that an unprivileged child can reach it.
    """
    directory = Path(tempfile.mkdtemp(prefix="semreport-ro-"))
    try:
        store = open_sqlite(_url(directory / "x.db"), clock=ManualClock())
        store.record([_decision(n) for n in range(6)])
        store.record_sessions([LegacySession("s-1", "p-1", "Workshop", _AT)])
        store.close()
        (directory / "x.db").chmod(0o444)
        directory.chmod(0o555)
        yield directory
    finally:
        directory.chmod(0o755)
        shutil.rmtree(directory)


class TestAReadOnlyDirectory:
    """A file in a read-only directory can be read; writing is a clear StorageError."""

    @OPENINGS
    def test_reads_work_and_writes_say_why_not(
        self, read_only_directory: Path, options: dict[str, Any]
    ) -> None:
        url = _url(read_only_directory / "x.db")
        expected = [_decision(n).recorded(n + 1, ManualClock()()) for n in range(6)]

        def work() -> tuple[list[Decision], Decision, str, str, bool]:
            store = open_sqlite(url, **options)
            try:
                read = list(store.decisions("p-1"))
                one = store.get("p-1", "d-3")
                session = store.get_session("s-1").title
                with pytest.raises(StorageError) as refused:
                    store.record([_decision(99)])
                return read, one, session, refused.value.message, store.read_only
            finally:
                store.close()

        read, one, session, refusal, read_only = _as_unprivileged(work)
        assert read == expected
        assert one == expected[3]
        assert session == "Workshop"
        assert read_only
        assert "read-only" in refusal
        assert "nothing was recorded" in refusal
        assert sorted(p.name for p in read_only_directory.iterdir()) == ["x.db"]

    def test_the_facade_serves_reports_from_it(self, read_only_directory: Path) -> None:
        url = _url(read_only_directory / "x.db")

        def work() -> int:
            with semreport.open(url, create=False) as sr:
                return len(sr.report("p-1").records)

        assert _as_unprivileged(work) == 6


# -- tamper evidence: bit flips in a real file ---------------------------------------------


def _flip(data: bytes, offset: int, bit: int) -> bytes:
    changed = bytearray(data)
    changed[offset] ^= 1 << bit
    return bytes(changed)


class TestBitFlipsInStoredRows:
    """A bit flipped anywhere in a stored row never silently changes a decision.

    Each trial flips one random bit of one row (its key, its columns, its text
    or its hash) in a copy of a real database file, opens the copy and reads
    everything back. Every read must return the original decisions or raise
    :class:`~semreport.CorruptStorage`. Losing a row wholly (a flipped key
    moves it out of the project) is deletion, which the stored hash cannot see:
    a read may then miss that record (``DecisionNotFound``, or a log one record
    shorter when it was the last), never return something else.
    """

    TRIALS = 200

    @pytest.fixture
    def pristine(self, tmp_path: Path) -> tuple[bytes, list[Decision], list[tuple[int, int]]]:
        path = tmp_path / "pristine.db"
        store = open_sqlite(_url(path), clock=ManualClock())
        stored = store.record([_decision(n) for n in range(30)])
        store.close()
        data = path.read_bytes()
        conn = sqlite3.connect(path)
        spans = []
        for body, sha256 in conn.execute("SELECT body, sha256 FROM decisions"):
            # A row: key and short columns just before its text, its hash right after.
            start = data.find(body.encode())
            assert start > 0
            assert data.find(sha256.encode(), start) > start
            spans.append((start - 48, start + len(body.encode()) + 64))
        conn.close()
        return data, stored, spans

    def test_every_read_is_the_original_or_corrupt_storage(
        self, tmp_path: Path, pristine: tuple[bytes, list[Decision], list[tuple[int, int]]]
    ) -> None:
        data, stored, spans = pristine
        rng = random.Random(20260301)
        outcomes = {"unchanged": 0, "corrupt": 0, "missing": 0}
        for trial in range(self.TRIALS):
            start, end = rng.choice(spans)
            offset, bit = rng.randrange(start, end), rng.randrange(8)
            path = tmp_path / f"flip-{trial}.db"
            path.write_bytes(_flip(data, offset, bit))
            outcomes[
                self._read_back(path, stored, f"trial {trial} (byte {offset}, bit {bit})")
            ] += 1
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
        # The flips landed: some were caught, and the check did not refuse everything.
        assert outcomes["corrupt"] > self.TRIALS // 4, outcomes
        assert outcomes["unchanged"] > 0, outcomes

    @staticmethod
    def _read_back(path: Path, stored: list[Decision], where: str) -> str:
        try:
            store = open_sqlite(_url(path), create=False)
        except CorruptStorage:
            return "corrupt"
        outcome = "unchanged"
        try:
            try:
                read = list(store.decisions("p-1"))
            except CorruptStorage:
                outcome = "corrupt"
            else:
                # Equal to the log, or to the log without its last record (a lost row).
                assert read in (stored, stored[:-1]), where
                if len(read) < len(stored):
                    outcome = "missing"
            for kept in stored:
                try:
                    assert store.get("p-1", kept.id) == kept, where
                except CorruptStorage:
                    outcome = "corrupt"
                except DecisionNotFound:
                    outcome = "corrupt" if outcome == "corrupt" else "missing"
        finally:
            store.close()
        return outcome


class TestTheStoredHashIsTheCitationId:
    """The hash each row keeps is the record's citation id in the report."""

    def test_each_rows_hash_is_its_citation(self, tmp_path: Path) -> None:
        path = tmp_path / "x.db"
        with semreport.open(_url(path), clock=ManualClock()) as sr:
            stored = sr.record([_decision(n) for n in range(8)])
            report = sr.report("p-1")
        with contextlib.closing(sqlite3.connect(path)) as conn:
            hashes = [h for (h,) in conn.execute("SELECT sha256 FROM decisions ORDER BY sequence")]
        assert hashes == [record_sha256(d) for d in stored]
        assert [f"sha256:{h}" for h in hashes] == [r.sha256 for r in report.records]

    def test_a_canonical_body_is_the_record_bytes(self, tmp_path: Path) -> None:
        # A record JCS writes without loss is stored as its canonical bytes: the hash of
        # the stored text is the citation, so reading checks it with one hashlib call.
        path = tmp_path / "x.db"
        store = open_sqlite(_url(path))
        (plain,) = store.record([_decision(1)])  # 1251.5: not a whole number
        (whole,) = store.record([_decision(3)])  # 1253.0: JCS would write 1253
        store.close()
        with contextlib.closing(sqlite3.connect(path)) as conn:
            rows = dict(conn.execute("SELECT id, body FROM decisions").fetchall())
        assert hashlib.sha256(rows["d-1"].encode()).hexdigest() == record_sha256(plain)
        assert hashlib.sha256(rows["d-3"].encode()).hexdigest() != record_sha256(whole)
        again = open_sqlite(_url(path))
        assert type(again.get("p-1", "d-3").attributes["cost_eur"]) is float
        again.close()

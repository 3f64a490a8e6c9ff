"""The progress database: one SQLite file holding each card's schedule, the reviews, timed-session scores and
exercise attempts (the answers given, never a solution).

Every write is one ``BEGIN IMMEDIATE`` transaction in WAL mode with a busy timeout: two kernels writing at once
queue rather than fail, and a review reads its card's schedule and writes the next one inside the same
transaction, so none is lost. A file that is not a database, or whose tables are not ours, is moved aside as
``<name>.corrupt-<UTC time>`` and a new one is made, with a warning; a missing file is made."""

from __future__ import annotations

import os
import sqlite3
import warnings
from contextlib import closing, contextmanager
from datetime import datetime, timezone
from pathlib import Path

from ...core._validate import InputError, check_bool, quote
from ..drills import chosen_topics
from ...core.i18n import N_, _
from .schedule import as_utc, card_from_json, scheduler

SCHEMA_VERSION = 1
ENV_VAR = "LLMEST_PROGRESS"
BUSY_TIMEOUT_S = 60   # how long a writer waits for another's transaction before giving up
_UNUSABLE = N_("{name} == {value} cannot be used: {reason}.")
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cards (id TEXT PRIMARY KEY, topic TEXT NOT NULL, state TEXT NOT NULL, due TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS reviews (id INTEGER PRIMARY KEY, card TEXT NOT NULL, topic TEXT NOT NULL,
    rating INTEGER NOT NULL, correct INTEGER NOT NULL, seconds REAL, at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, topics TEXT NOT NULL,
    correct INTEGER NOT NULL, close INTEGER NOT NULL, total INTEGER NOT NULL, seconds REAL, at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS attempts (id INTEGER PRIMARY KEY, exercise TEXT NOT NULL, correct INTEGER NOT NULL,
    answer TEXT, at TEXT NOT NULL);
"""
COLUMNS = {"meta": ["key", "value"], "cards": ["id", "topic", "state", "due"],
           "reviews": ["id", "card", "topic", "rating", "correct", "seconds", "at"],
           "sessions": ["id", "kind", "topics", "correct", "close", "total", "seconds", "at"],
           "attempts": ["id", "exercise", "correct", "answer", "at"]}


class ProgressWarning(UserWarning):
    """The progress file was unreadable and has been replaced (the old one is kept beside it)."""


def default_path() -> Path:
    """``$LLMEST_PROGRESS`` if set, else progress.sqlite3 in the user's data folder (platformdirs)."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("llmest", appauthor=False)) / "progress.sqlite3"


def _now(now) -> datetime:
    return datetime.now(timezone.utc) if now is None else as_utc(now, "now")


class Store:
    """Progress kept in the SQLite file at ``path`` (default :func:`default_path`). ``notice`` says what was done
    to the file on opening (made, or replaced because it was unreadable), or is empty. ``param`` names the path in
    messages (the command line's --db)."""

    def __init__(self, path=None, param: str = "path"):
        if path is not None and not isinstance(path, (str, os.PathLike)):
            raise InputError(param, _("{name} == {value}, must be a file path.").format(name=param, value=quote(path)))
        self.path = Path(path).expanduser() if path is not None else default_path()
        if self.path.is_dir():
            raise InputError(param, _("{name} == {value} is a folder, must be a file path.").format(
                name=param, value=quote(str(self.path))))
        if self.path.exists() and not self.path.is_file():  # a device or pipe is never moved aside nor written
            raise InputError(param, _("{name} == {value} is not a regular file, must be a file path.").format(
                name=param, value=quote(str(self.path))))
        self.param, self.scheduler, self.notice = param, scheduler(), ""
        self._prepare()

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    # -- opening ---------------------------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_S * 1000}")
        return db

    def _prepare(self) -> None:
        """Make the file and its tables if missing; move an unreadable one aside and start again."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            made = not self.path.exists() or self.path.stat().st_size == 0
            self._create_or_check()
        except OSError as err:
            raise InputError(self.param, _(_UNUSABLE).format(name=self.param, value=quote(str(self.path)),
                                                             reason=err.strerror or err)) from None
        except sqlite3.OperationalError as err:  # cannot open, or another writer held it past the timeout
            raise InputError(self.param, _(_UNUSABLE).format(name=self.param, value=quote(str(self.path)),
                                                             reason=err)) from None
        except (sqlite3.DatabaseError, _NotOurs) as err:  # not a database, a damaged one, or not our tables
            try:
                kept = self._move_aside()
            except OSError as moving:
                raise InputError(self.param, _("{name} == {value} could not be read ({reason}) nor moved aside: "
                                               "{moving}.").format(name=self.param, value=quote(str(self.path)),
                                                                   reason=err, moving=moving.strerror or moving)) \
                    from None
            self._create_or_check()
            self.notice = (f"The progress file {self.path} could not be read ({err}); it was moved to {kept.name} "
                           "and a new one was started.")
            warnings.warn(self.notice, ProgressWarning, stacklevel=3)
            return
        if made:
            self.notice = f"Started a new progress file at {self.path}."

    def _create_or_check(self) -> None:
        with closing(self._connect()) as db:
            if db.execute("PRAGMA journal_mode = WAL").fetchone()[0].lower() != "wal":
                raise _NotOurs("it could not be put in WAL mode")
            db.execute("BEGIN IMMEDIATE")
            try:
                for statement in SCHEMA.split(";"):  # not executescript, which commits first
                    if statement.strip():
                        db.execute(statement)
                db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
                version = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
                if version != str(SCHEMA_VERSION):
                    raise _NotOurs(f"schema version {version}, this llmest reads {SCHEMA_VERSION}")
                for table, columns in COLUMNS.items():
                    found = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
                    if found != columns:
                        raise _NotOurs(f"table {table} has columns {found}, not {columns}")
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise

    def _move_aside(self) -> Path:
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
        kept = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        os.replace(self.path, kept)
        for suffix in ("-wal", "-shm"):  # a journal of the old file must not be replayed into the new one
            side = self.path.with_name(self.path.name + suffix)
            if side.exists():
                os.replace(side, kept.with_name(kept.name + suffix))
        return kept

    @contextmanager
    def _transaction(self):
        if not self.path.exists():  # removed while open: start again
            self._prepare()
        with closing(self._connect()) as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def _read(self, query: str, args=()) -> list:
        with closing(self._connect()) as db:
            return db.execute(query, args).fetchall()

    # -- writing ---------------------------------------------------------------------------------------------
    def review(self, card_id: str, topic: str, rating, correct: bool, now=None, seconds=None):
        """Record a review of ``card_id`` graded ``rating`` (a ``fsrs.Rating``, see :func:`rating`) at ``now``
        (UTC; default the present) and return the card's next schedule (a ``fsrs.Card``)."""
        from fsrs import Rating

        card_id, topic = _name("card_id", card_id), _name("topic", topic)
        if not isinstance(rating, Rating):
            raise InputError("rating", _("rating == {value}, must be an fsrs.Rating (Again, Hard, Good, Easy).")
                             .format(value=quote(rating)))
        correct, at = check_bool("correct", correct), _now(now)
        with self._transaction() as db:
            row = db.execute("SELECT state FROM cards WHERE id = ?", (card_id,)).fetchone()
            card = card_from_json(row[0] if row else None, card_id, at)
            card, _log = self.scheduler.review_card(card, rating, at)
            db.execute("INSERT OR REPLACE INTO cards VALUES (?, ?, ?, ?)",
                       (card_id, topic, card.to_json(), card.due.isoformat()))
            db.execute("INSERT INTO reviews (card, topic, rating, correct, seconds, at) VALUES (?, ?, ?, ?, ?, ?)",
                       (card_id, topic, int(rating), int(correct), seconds, at.isoformat()))
        return card

    def record_session(self, kind: str, topics, score: dict, seconds=None, now=None) -> None:
        """A timed session's score: ``score`` counts grades ("correct", "close", ...), as TimedSession.score()."""
        total = sum(score.values())
        with self._transaction() as db:
            db.execute("INSERT INTO sessions (kind, topics, correct, close, total, seconds, at) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (_name("kind", kind), ",".join(chosen_topics(topics)), score.get("correct", 0),
                        score.get("close", 0), total,
                        seconds, _now(now).isoformat()))

    def record_attempt(self, exercise: str, correct: bool, answer=None, now=None) -> None:
        """An exercise attempt: the exercise's key, whether it was right and, if given, the answer typed."""
        with self._transaction() as db:
            db.execute("INSERT INTO attempts (exercise, correct, answer, at) VALUES (?, ?, ?, ?)",
                       (_name("exercise", exercise), int(check_bool("correct", correct)),
                        None if answer is None else str(answer), _now(now).isoformat()))

    # -- reading ---------------------------------------------------------------------------------------------
    def card(self, card_id: str):
        """The schedule of ``card_id`` (a ``fsrs.Card``), or None before its first review."""
        rows = self._read("SELECT state FROM cards WHERE id = ?", (card_id,))
        return card_from_json(rows[0][0], card_id, None) if rows else None

    def cards(self) -> dict:
        """{card id: (topic, fsrs.Card)} of every card reviewed so far."""
        return {cid: (topic, card_from_json(state, cid, None))
                for cid, topic, state in self._read("SELECT id, topic, state FROM cards ORDER BY id")}

    def reviews(self) -> list[tuple]:
        """(card id, topic, rating, correct, seconds, time) of every review, oldest first."""
        return [(cid, topic, rating, bool(correct), seconds, datetime.fromisoformat(at))
                for cid, topic, rating, correct, seconds, at in
                self._read("SELECT card, topic, rating, correct, seconds, at FROM reviews ORDER BY at, id")]

    def review_counts(self) -> dict:
        """{card id: reviews so far}."""
        return dict(self._read("SELECT card, COUNT(*) FROM reviews GROUP BY card"))

    def sessions(self) -> list[dict]:
        keys = ("kind", "topics", "correct", "close", "total", "seconds", "at")
        return [dict(zip(keys, row)) for row in self._read(f"SELECT {', '.join(keys)} FROM sessions ORDER BY id")]

    def attempts(self) -> list[dict]:
        keys = ("exercise", "correct", "answer", "at")
        return [dict(zip(keys, row)) for row in self._read(f"SELECT {', '.join(keys)} FROM attempts ORDER BY id")]

    def schema_version(self) -> int:
        return int(self._read("SELECT value FROM meta WHERE key = 'schema_version'")[0][0])


class _NotOurs(Exception):
    """A readable SQLite file whose tables are not the ones this version writes."""


def _name(param: str, value) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(param, _("{name} == {value}, must be a non-empty text.").format(name=param,
                                                                                      value=quote(value)))
    return value

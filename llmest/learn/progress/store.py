"""The progress database: one SQLite file holding each card's schedule, the reviews, timed-session scores and
exercise attempts (the answers given, never a solution).

Every write is one ``BEGIN IMMEDIATE`` transaction in WAL mode with a busy timeout: two kernels writing at once
queue rather than fail, and a review reads its card's schedule and writes the next one inside the same
transaction, so none is lost.

The store writes only a file it made itself (:mod:`.opening` recognises one: its ``application_id`` and
``user_version`` pragmas, and its tables): a missing file (or an empty one, not a link) is made; anything else (a
text, another application's database, a store of a newer llmest, a damaged one, a symbolic link) is refused with
an :class:`InputError` and left as it is, never renamed, rewritten, switched to WAL or given tables. A write that
fails (a full disk) is rolled back whole and said in one message naming the file: what was committed before stays."""


from __future__ import annotations

import os
import sqlite3
from contextlib import closing, contextmanager
from datetime import datetime, timezone
from pathlib import Path

from ...core._validate import InputError, check_bool, quote
from ..drills import chosen_topics
from ...core.i18n import _
from . import opening
from .opening import _UNUSABLE, APPLICATION_ID, COLUMNS, SCHEMA, SCHEMA_VERSION  # noqa: F401 (the store's own)
from .schedule import as_utc, card_from_json, scheduler

ENV_VAR = "LLMEST_PROGRESS"
BUSY_TIMEOUT_S = 60   # how long a writer waits for another's transaction before giving up


def default_path() -> Path:
    """``$LLMEST_PROGRESS`` if set, else progress.sqlite3 in the user's data folder (platformdirs)."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("llmest", appauthor=False)) / "progress.sqlite3"


def _now(now) -> datetime:
    return datetime.now(timezone.utc) if now is None else as_utc(now, "now")


class Store:
    """Progress kept in the SQLite file at ``path`` (default :func:`default_path`). ``notice`` says that the file
    was made on opening, or is empty. ``param`` names the path in messages (the command line's --db). A file this
    store did not make, a newer llmest's, a damaged one or a symbolic link raises an InputError and is left as it is
    (see the module's text)."""

    def __init__(self, path=None, param: str = "path"):
        if path is not None and not isinstance(path, (str, os.PathLike)):
            raise InputError(param, _("{name} == {value}, must be a file path.").format(name=param, value=quote(path)))
        self.path = Path(path).expanduser() if path is not None else default_path()
        self.param, self.scheduler, self.notice = param, scheduler(), ""
        if self.path.is_dir():
            raise InputError(param, _("{name} == {value} is a folder, must be a file path.").format(
                name=param, value=quote(str(self.path))))
        if self.path.exists() and not self.path.is_file():  # a device or pipe is never opened nor written
            raise InputError(param, _("{name} == {value} is not a regular file, must be a file path.").format(
                name=param, value=quote(str(self.path))))
        opening.refuse_link(self.path, param)
        self._prepare()

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    # -- opening ---------------------------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        opening.refuse_link(self.path, self.param)  # replaced by a link since: still never written through
        db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_S * 1000}")
        return db

    def _prepare(self) -> None:
        """Make the file if missing, see that it is ours (writing nothing to it before), then make or mark it."""
        try:
            opening.make_if_missing(self.path)
            found = opening.inspect(self.path, self.param)
            with closing(self._connect()) as db:
                made = self._make_or_mark(db, found)
        except OSError as err:
            raise InputError(self.param, _(_UNUSABLE).format(name=self.param, value=quote(str(self.path)),
                                                             reason=err.strerror or err)) from None
        except sqlite3.Error as err:  # cannot open, another writer held it past the timeout, a full disk
            raise opening.failure(err, self.path, self.param) from None
        if made:
            self.notice = _("Started a new progress file at {path}.").format(path=self.path)

    def _make_or_mark(self, db: sqlite3.Connection, found: str) -> bool:
        """Under the write lock, as found again there (another process may have made it meanwhile): the tables and
        pragmas of a new file, the pragmas of an unmarked store, nothing for ours. True if the tables were made."""
        db.execute("BEGIN IMMEDIATE")
        try:
            application_id = db.execute("PRAGMA application_id").fetchone()[0]
            empty = not db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]
            made = found == opening.NEW and application_id == 0 and empty
            if made:
                for statement in SCHEMA.split(";"):  # not executescript, which commits first
                    if statement.strip():
                        db.execute(statement)
                db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            elif application_id == APPLICATION_ID:
                version = db.execute("PRAGMA user_version").fetchone()[0]
                if version != SCHEMA_VERSION:
                    raise opening.refuse(self.param, opening._NEWER if version > SCHEMA_VERSION else opening._OLDER,
                                         self.path, schema=version)
                opening.check_tables(db, self.path, self.param)
            elif found == opening.UNMARKED:  # as inspect() found it, with meta saying schema 1: ours, to be marked
                opening.check_tables(db, self.path, self.param)
            else:  # changed since it was inspected
                raise opening.refuse(self.param, opening._NOT_OURS, self.path)
            if application_id != APPLICATION_ID:
                db.execute(f"PRAGMA application_id = {APPLICATION_ID}")  # in the transaction, with the tables
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        if db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":  # ours: made, or set back by hand
            db.execute("PRAGMA journal_mode = WAL")
        return made

    @contextmanager
    def _transaction(self):
        if not self.path.exists():  # removed while open: start again
            self._prepare()
        with closing(self._connect()) as db:
            try:
                db.execute("BEGIN IMMEDIATE")
                yield db
                db.execute("COMMIT")
            except BaseException as err:
                if db.in_transaction:  # SQLite may have rolled back already (a full disk does)
                    db.execute("ROLLBACK")
                if isinstance(err, sqlite3.Error):
                    raise opening.failure(err, self.path, self.param) from None
                raise

    def _read(self, query: str, args=()) -> list:
        try:
            with closing(self._connect()) as db:
                return db.execute(query, args).fetchall()
        except sqlite3.Error as err:  # a page damaged since the file was opened
            raise opening.failure(err, self.path, self.param) from None

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


def _name(param: str, value) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(param, _("{name} == {value}, must be a non-empty text.").format(name=param,
                                                                                      value=quote(value)))
    return value

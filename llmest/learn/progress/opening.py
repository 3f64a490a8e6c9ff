"""Which file the progress store may open: only one it made itself.

A store carries ``PRAGMA application_id = APPLICATION_ID`` and ``PRAGMA user_version = SCHEMA_VERSION``, set in
the transaction that makes its tables. :func:`inspect` reads a file without writing to it (the 100-byte SQLite
header first, then the database read-only) and says whether it is new (missing, or empty and not a link), one of
ours, or a store made before the pragmas were set (its tables exactly ours and ``meta``'s schema_version 1, which
:class:`~.store.Store` marks as its own); anything else raises an :class:`InputError` naming the file and what it
is, and the file is left as it is. :func:`failure` turns an SQLite error met later (a full disk, a damaged page)
into one such message."""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from pathlib import Path

from ...core._validate import InputError, quote
from ...core.i18n import N_, _

SCHEMA_VERSION = 1
APPLICATION_ID = 0x6C6C6D65   # "llme": PRAGMA application_id of every progress file
SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE cards (id TEXT PRIMARY KEY, topic TEXT NOT NULL, state TEXT NOT NULL, due TEXT NOT NULL);
CREATE TABLE reviews (id INTEGER PRIMARY KEY, card TEXT NOT NULL, topic TEXT NOT NULL,
    rating INTEGER NOT NULL, correct INTEGER NOT NULL, seconds REAL, at TEXT NOT NULL);
CREATE TABLE sessions (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, topics TEXT NOT NULL,
    correct INTEGER NOT NULL, close INTEGER NOT NULL, total INTEGER NOT NULL, seconds REAL, at TEXT NOT NULL);
CREATE TABLE attempts (id INTEGER PRIMARY KEY, exercise TEXT NOT NULL, correct INTEGER NOT NULL,
    answer TEXT, at TEXT NOT NULL);
"""
COLUMNS = {"meta": ["key", "value"], "cards": ["id", "topic", "state", "due"],
           "reviews": ["id", "card", "topic", "rating", "correct", "seconds", "at"],
           "sessions": ["id", "kind", "topics", "correct", "close", "total", "seconds", "at"],
           "attempts": ["id", "exercise", "correct", "answer", "at"]}
NEW, OURS, UNMARKED = "new", "ours", "unmarked"   # what inspect() finds: made here, kept, marked then kept

_UNUSABLE = N_("{name} == {value} cannot be used: {reason}.")
_NOT_OURS = N_("{file} is not an llmest progress file: left as it is; choose another {name}.")
_LINK = N_("{file} is a symbolic link (to {target}): a progress file is never written through a link; give the file "
           "itself as {name}.")
_NEWER = N_("{file}: this progress was written by a newer llmest (schema {schema}); update llmest to read it "
            "(the file is left as it is).")
_OLDER = N_("{file}: this progress was written by an older llmest (schema {schema}) that this one cannot read: "
            "left as it is; choose another {name}.")
_CHANGED = N_("{file} is an llmest progress file whose tables were changed ({reason}): left as it is; choose "
              "another {name}.")
_DAMAGED = N_("{file} is damaged ({reason}): left as it is, with the reviews it holds; choose another {name}.")
_FULL = N_("{file} could not be written ({reason}): nothing of this write was kept, every earlier one is; free some "
           "space and try again.")


def refuse(param: str, message: str, path: Path, **values) -> InputError:
    return InputError(param, _(message).format(file=str(path), name=param, **values))


def refuse_link(path: Path, param: str) -> None:
    """The file itself, or its journal beside it, as a symbolic link: refused, never followed."""
    for link in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        if link.is_symlink():
            raise refuse(param, _LINK, link, target=os.readlink(link))


def make_if_missing(path: Path) -> bool:
    """Make an empty file at ``path`` if there is none (never through a link: O_EXCL); True if made here."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    except FileExistsError:
        return False
    return True


def inspect(path: Path, param: str) -> str:
    """NEW, OURS or UNMARKED (see the module's text), read without writing; else the InputError saying why not."""
    wal = path.with_name(path.name + "-wal")
    with open(path, "rb") as file:
        header = file.read(100)
    if not header and not (wal.exists() and wal.stat().st_size):
        return NEW
    if len(header) < 100 or not header.startswith(b"SQLite format 3\x00"):
        raise refuse(param, _NOT_OURS, path)
    application_id = int.from_bytes(header[68:72], "big")
    version = int.from_bytes(header[60:64], "big", signed=True)
    if application_id not in (0, APPLICATION_ID):
        raise refuse(param, _NOT_OURS, path)
    if application_id == APPLICATION_ID and version > SCHEMA_VERSION:
        raise refuse(param, _NEWER, path, schema=version)
    try:
        return _read_only(path, param, immutable=True)
    except sqlite3.Error as err:
        if application_id == 0 and not isinstance(err, sqlite3.OperationalError):
            raise refuse(param, _NOT_OURS, path) from None
        raise failure(err, path, param) from None


def _read_only(path: Path, param: str, immutable: bool) -> str:
    """Read as it lies on disk (immutable: no lock, no journal made beside it) while no connection has it open (no
    -wal) and the file stays as it was through the reading; else read-only with SQLite's locks, a writer at work."""
    wal, uri = path.with_name(path.name + "-wal"), f"{path.resolve().as_uri()}?mode=ro"

    def still():
        state = path.stat()
        return not wal.exists() and (state.st_ino, state.st_size, state.st_mtime_ns)

    before = immutable and still()
    with closing(sqlite3.connect(uri + ("&immutable=1" if before else ""), uri=True, timeout=60)) as db:
        try:
            found = _what_it_holds(db, path, param)
        except (InputError, sqlite3.DatabaseError):
            if before and still() == before:
                raise
            found = None
    return found if found is not None else _read_only(path, param, immutable=False)


def _what_it_holds(db: sqlite3.Connection, path: Path, param: str) -> str:
    application_id = db.execute("PRAGMA application_id").fetchone()[0]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if application_id == 0:  # made before the pragmas were set: only our tables, and meta says schema 1
        if tables != set(COLUMNS) or version != 0:
            raise refuse(param, _NOT_OURS, path)
        found = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if found is None or not found[0].isdigit():
            raise refuse(param, _NOT_OURS, path)
        version = int(found[0])
    elif application_id != APPLICATION_ID:
        raise refuse(param, _NOT_OURS, path)
    if version > SCHEMA_VERSION:
        raise refuse(param, _NEWER, path, schema=version)
    if version < SCHEMA_VERSION:
        raise refuse(param, _OLDER, path, schema=version)
    check_tables(db, path, param)
    problems = [line for (row,) in db.execute("PRAGMA quick_check") for line in str(row).splitlines()]
    if problems != ["ok"]:
        raise refuse(param, _DAMAGED, path, reason="; ".join([p for p in problems if not p.startswith("***")][:2]))
    return UNMARKED if application_id == 0 else OURS


def check_tables(db: sqlite3.Connection, path: Path, param: str) -> None:
    """Our tables, each with our columns, and no other."""
    tables = sorted(name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
    if set(tables) != set(COLUMNS):
        raise refuse(param, _CHANGED, path, reason=_("tables {found}, not {expected}").format(
            found=", ".join(tables) or "-", expected=", ".join(COLUMNS)))
    for table, columns in COLUMNS.items():
        found = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
        if found != columns:
            raise refuse(param, _CHANGED, path, reason=_("table {table} has columns {found}, not {expected}").format(
                table=table, found=", ".join(found), expected=", ".join(columns)))


def failure(err: sqlite3.Error, path: Path, param: str) -> InputError:
    """An SQLite error on the file as one message naming it: a full disk, a damaged file, or what SQLite said."""
    name, reason = getattr(err, "sqlite_errorname", ""), str(err)
    if name.startswith("SQLITE_FULL") or "disk is full" in reason:
        return refuse(param, _FULL, path, reason=reason)
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or type(err) is sqlite3.DatabaseError:
        return refuse(param, _DAMAGED, path, reason=reason)
    return InputError(param, _(_UNUSABLE).format(name=param, value=quote(str(path)), reason=reason))

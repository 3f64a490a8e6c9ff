"""Progress between sessions (llmest.learn.progress): the schedule is FSRS's own (the package's Scheduler run directly
on the same reviews), intervals grow on success and reset on failure, and the SQLite file survives a writer
killed mid-transaction, concurrent writers and a full disk with no review lost; a file the store did not make (a text,
another application's database, a newer llmest's store, a damaged one, a symbolic link) is refused and left as it
is. Then the surfaces: ``llmest review`` on piped stdin, the widgets' records, the progress view and the study plan."""

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from contextlib import closing
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from fsrs import Card, Rating, Scheduler, State

from llmest import InputError, cli, progress
from llmest.learn.drills import generate
from llmest.learn.flashcards import cards

ROOT = Path(__file__).resolve().parent.parent
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
ENV = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


@pytest.fixture
def store(tmp_path):
    return progress.Store(tmp_path / "progress.sqlite3")


def _replay(ratings, start=T0):
    """The same reviews through fsrs directly, each on the day the card falls due: [(card, interval)]."""
    scheduler, card, now, out = Scheduler(enable_fuzzing=False), Card(card_id=1, due=start), start, []
    for rating in ratings:
        card, _ = scheduler.review_card(card, rating, now)
        out.append((card, card.due - now))
        now = card.due
    return out


SEQUENCE = [Rating.Good] * 6 + [Rating.Again] + [Rating.Good] * 3 + [Rating.Hard, Rating.Easy]


def test_the_store_schedules_as_fsrs_does(store):
    now = T0
    for rating, (expected, _) in zip(SEQUENCE, _replay(SEQUENCE)):
        card = store.review("drill:training-days", "compute", rating, rating != Rating.Again, now)
        assert (card.due, card.state, card.step, card.stability, card.difficulty) == \
               (expected.due, expected.state, expected.step, expected.stability, expected.difficulty)
        assert store.card("drill:training-days").to_dict() == card.to_dict()   # as stored
        now = card.due
    assert [r[2] for r in store.reviews()] == [int(r) for r in SEQUENCE]


def test_intervals_grow_on_success_and_reset_on_failure():
    steps = _replay(SEQUENCE)
    intervals = [interval for _, interval in steps]
    review = [i for i, (card, _) in enumerate(steps[:6]) if card.state == State.Review]
    assert len(review) >= 3
    assert all(intervals[a] < intervals[b] for a, b in zip(review, review[1:]))   # Good after Good: longer
    assert intervals[review[-1]] > timedelta(days=7)
    lapse = 6
    assert steps[lapse][0].state == State.Relearning
    assert intervals[lapse] <= timedelta(minutes=10) < timedelta(days=1)           # Again: back to minutes
    assert intervals[8] < intervals[review[-1]]                                      # and it regrows from lower


def test_the_rating_of_a_grade():
    assert progress.rating("wrong") == progress.rating("empty") == progress.rating("invalid") == Rating.Again
    assert progress.rating("close") == Rating.Hard
    assert progress.rating("correct") == Rating.Good
    assert progress.rating("correct", seconds=30, limit_s=180) == Rating.Easy
    assert progress.rating("correct", seconds=100, limit_s=180) == Rating.Good
    with pytest.raises(InputError) as err:
        progress.rating("great")
    assert err.value.param == "grade"


def test_due_lists_the_cards_due_today_earliest_first_then_the_new(store):
    deck = cards("memory")
    progress.review_flashcard(store, deck[0], False, T0)                    # Again: due in a minute
    progress.review_flashcard(store, deck[1], True, T0 - timedelta(hours=1))  # Good: due 50 minutes ago
    for _ in range(4):                                                       # well known: due days later
        card = progress.review_flashcard(store, deck[2], True, store.card(progress.flashcard_id(deck[2])).due
                                         if store.card(progress.flashcard_id(deck[2])) else T0)
    assert card.due > T0 + timedelta(days=1)
    listed = progress.due(store, T0, "memory")
    assert [d.item.id for d in listed[:2]] == [progress.flashcard_id(deck[1]), progress.flashcard_id(deck[0])]
    assert progress.flashcard_id(deck[2]) not in {d.item.id for d in listed}
    new = listed[2:]
    assert all(d.due is None for d in new) and len(new) == len(progress.catalog("memory")) - 3
    assert [d.item.kind for d in new[:4]] == ["flashcard", "drill", "flashcard", "drill"]
    assert [c.front for c in progress.due_flashcards(store, deck, T0)[:2]] == [deck[1].front, deck[0].front]


def test_the_progress_says_a_review_takes_the_days_cards_at_once(store):
    """A card due at 13:04 is shown by a review at 12:55: the listing says that the day's cards are taken together,
    earliest first, and that each time is when the card falls due."""
    deck = cards("memory")
    progress.review_flashcard(store, deck[0], False, T0)   # Again: due a minute after T0
    shown = str(progress.progress(store, T0, "memory")).splitlines()
    assert shown[1].startswith(f"  {(T0 + timedelta(minutes=1)):%H:%M} ")
    assert shown[-1] == ("A review (llmest review, the flashcards) takes all of the day's cards now, earliest first; "
                         "the times are when each falls due.")
    assert progress.due(store, T0, "memory")[0].item.id == progress.flashcard_id(deck[0])
    assert "falls due" not in str(progress.progress(progress.Store(store.path.with_name("empty.db")), T0))


# -- the file --------------------------------------------------------------------------------------------------
def test_a_missing_file_is_made_with_its_schema_version(tmp_path):
    path = tmp_path / "new" / "p.sqlite3"
    made = progress.Store(path)
    assert path.exists() and made.schema_version() == progress.SCHEMA_VERSION
    assert "new progress file" in made.notice
    assert progress.Store(path).notice == ""
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_the_path_comes_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(progress.ENV_VAR, str(tmp_path / "env.sqlite3"))
    assert progress.default_path() == tmp_path / "env.sqlite3"
    assert progress.Store().path == tmp_path / "env.sqlite3"
    monkeypatch.delenv(progress.ENV_VAR)
    assert progress.default_path().name == "progress.sqlite3" and "llmest" in str(progress.default_path())


NOT_OURS = "is not an llmest progress file: left as it is; choose another --db."


def _files(folder):
    """{name: bytes, or a link's target} of every file in ``folder``: what a refusal must leave as it was."""
    return {p.name: os.readlink(p) if p.is_symlink() else p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("content", [os.urandom(4096), b"SQLite format 3\x00" + b"\x01" * 4000, b"not a database",
                                     b"SQLite format 3\x00"])
def test_a_file_that_is_not_a_store_is_refused_and_left_as_it_is(tmp_path, content):
    path = tmp_path / "notes.txt"
    path.write_bytes(content)
    with pytest.raises(InputError) as err:
        progress.Store(path, param="--db")
    assert err.value.param == "--db" and str(err.value) == f"{path} {NOT_OURS}"
    assert _files(tmp_path) == {"notes.txt": content}   # not renamed, not rewritten, nothing made beside it


def _sqlite(path, *statements, wal=False):
    with closing(sqlite3.connect(path)) as db:
        if wal:
            db.execute("PRAGMA journal_mode = WAL")
        for statement in statements:
            db.execute(statement)
        db.commit()


@pytest.mark.parametrize("statements, wal", [
    (["CREATE TABLE notes (what TEXT)", "INSERT INTO notes VALUES ('mine')"], False),
    (["CREATE TABLE notes (what TEXT)", "INSERT INTO notes VALUES ('mine')"], True),     # another app, in WAL
    (["CREATE TABLE reviews (what TEXT)"], False),                                       # one of our names
    (["PRAGMA application_id = 1234", "CREATE TABLE t (x)"], False),                     # another app's id
    (["PRAGMA user_version = 3"], False),                                                # tables none, a version
    ([statement for statement in progress.store.SCHEMA.split(";") if statement.strip()]
     + ["INSERT INTO meta VALUES ('schema_version', '1')", "CREATE TABLE notes (what TEXT)"], False),  # and more
    ([statement for statement in progress.store.SCHEMA.split(";") if statement.strip()], False),  # no version
])
def test_another_applications_database_is_refused_untouched(tmp_path, statements, wal):
    """Never given tables, switched to WAL, renamed or rewritten; no journal is left beside it."""
    path = tmp_path / "theirs.db"
    _sqlite(path, *statements, wal=wal)
    before = _files(tmp_path)
    with pytest.raises(InputError, match="is not an llmest progress file: left as it is; choose another --db"):
        progress.Store(path, param="--db")
    assert _files(tmp_path) == before
    with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == ("wal" if wal else "delete")
        assert db.execute("PRAGMA application_id").fetchone()[0] in (0, 1234)


def _store_with_reviews(path, n=3):
    store = progress.Store(path)
    for i in range(n):
        store.review(f"drill:card-{i % 50}", "memory", Rating.Good, True, T0 + timedelta(minutes=i))
    return store


@pytest.mark.parametrize("version", [2, 99])
def test_a_newer_llmests_store_is_refused_read_only_and_left_as_it_is(tmp_path, version):
    path = tmp_path / "progress.sqlite3"
    _store_with_reviews(path)
    _sqlite(path, f"PRAGMA user_version = {version}")   # as a newer llmest marks its schema
    before = _files(tmp_path)
    with pytest.raises(InputError) as err:
        progress.Store(path, param="--db")
    assert str(err.value) == (f"{path}: this progress was written by a newer llmest (schema {version}); update llmest "
                              "to read it (the file is left as it is).")
    assert _files(tmp_path) == before
    _sqlite(path, "PRAGMA user_version = 1")
    assert len(progress.Store(path).reviews()) == 3                    # nothing was lost


def test_a_store_made_before_its_marks_is_marked_and_kept_and_an_older_one_refused(tmp_path):
    """A store of the first llmest (meta says schema 1, no application_id) keeps its reviews; one marked with
    an older schema than this llmest reads is refused, left as it is; so is one whose meta says a newer one."""
    path = tmp_path / "progress.sqlite3"
    _store_with_reviews(path)
    _sqlite(path, "PRAGMA application_id = 0", "PRAGMA user_version = 0")
    store = progress.Store(path)
    assert store.notice == "" and len(store.reviews()) == 3 and store.schema_version() == 1
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA application_id").fetchone()[0] == progress.store.APPLICATION_ID
        assert db.execute("PRAGMA user_version").fetchone()[0] == progress.SCHEMA_VERSION
    _sqlite(path, "PRAGMA user_version = 0")
    with pytest.raises(InputError, match=r"written by an older llmest \(schema 0\) that this one cannot read: left"):
        progress.Store(path)
    _sqlite(path, "PRAGMA application_id = 0", "UPDATE meta SET value = '7' WHERE key = 'schema_version'")
    with pytest.raises(InputError, match=r"written by a newer llmest \(schema 7\); update llmest to read it"):
        progress.Store(path)


@pytest.mark.parametrize("change", ["ALTER TABLE reviews ADD COLUMN note TEXT", "CREATE TABLE notes (what TEXT)"])
def test_a_store_whose_tables_were_changed_is_refused_untouched_not_started_again(tmp_path, change):
    path = tmp_path / "progress.sqlite3"
    _store_with_reviews(path)
    _sqlite(path, change)
    before = _files(tmp_path)
    with pytest.raises(InputError, match="is an llmest progress file whose tables were changed .*: left as it is"):
        progress.Store(path)
    assert _files(tmp_path) == before


@pytest.mark.parametrize("target", ["empty", "missing", "store"])
def test_a_symbolic_link_is_refused_never_written_through(tmp_path, target):
    path, link = tmp_path / target, tmp_path / "link.sqlite3"
    if target == "empty":
        path.touch()
    elif target == "store":
        _store_with_reviews(path)
    link.symlink_to(path)
    before = _files(tmp_path)
    with pytest.raises(InputError) as err:
        progress.Store(link, param="--db")
    assert err.value.param == "--db" and str(err.value) == (
        f"{link} is a symbolic link (to {path}): a progress file is never written through a link; give the file "
        "itself as --db.")
    assert _files(tmp_path) == before and not (tmp_path / "missing").exists()
    done = _review("--db", str(link), "--n", "1")
    assert done.returncode == 2 and "is a symbolic link" in done.stderr and _files(tmp_path) == before


def test_an_empty_file_is_made_a_store(tmp_path):
    path = tmp_path / "progress.sqlite3"
    path.touch()
    store = progress.Store(path)
    assert "new progress file" in store.notice and store.schema_version() == progress.SCHEMA_VERSION


class _DiskFull(sqlite3.Connection):
    """A connection whose first INSERT fills its disk (max_page_count, so SQLite itself answers "database or disk
    is full" and rolls the transaction back) before the INSERT runs."""

    def execute(self, sql, *args):
        if sql.startswith("INSERT"):
            pages = super().execute("PRAGMA page_count").fetchone()[0]
            super().execute(f"PRAGMA max_page_count = {pages}")
            super().execute("INSERT INTO attempts (exercise, correct, answer, at) VALUES ('-', 0, ?, '-')",
                            ("x" * 1_000_000,))
        return super().execute(sql, *args)


def _fill_the_disk(monkeypatch):
    def connect(self):
        return sqlite3.connect(self.path, timeout=60, isolation_level=None, factory=_DiskFull)

    monkeypatch.setattr(progress.Store, "_connect", connect)


def test_a_full_disk_is_one_message_naming_the_file_and_keeps_every_earlier_review(tmp_path, monkeypatch):
    path = tmp_path / "progress.sqlite3"
    store = _store_with_reviews(path)
    with monkeypatch.context() as patch:
        _fill_the_disk(patch)
        for write in (lambda: store.review("drill:x", "memory", Rating.Good, True, T0),
                      lambda: store.record_attempt("5.1", False, "100 days", T0)):
            with pytest.raises(InputError) as err:
                write()
            assert err.value.param == "path" and str(err.value) == (
                f"{path} could not be written (database or disk is full): nothing of this write was kept, every "
                "earlier one is; free some space and try again.")
    assert len(store.reviews()) == 3 and store.attempts() == []
    store.review("drill:x", "memory", Rating.Good, True, T0)                 # space again: it writes
    assert len(progress.Store(path).reviews()) == 4


def test_llmest_review_on_a_full_disk_says_so_without_a_traceback(tmp_path, monkeypatch, capsys):
    import io

    path = tmp_path / "progress.sqlite3"
    _store_with_reviews(path)
    _fill_the_disk(monkeypatch)
    monkeypatch.setattr(sys, "stdin", io.StringIO("\ny\n"))
    with pytest.raises(SystemExit) as done:
        cli.main(["review", "--db", str(path), "--topics", "memory", "--n", "1"])
    err = capsys.readouterr().err
    assert done.value.code == 2 and err.strip().splitlines()[-1] == (
        f"llmest review: error: --db: {path} could not be written (database or disk is full): nothing of this write "
        "was kept, every earlier one is; free some space and try again.")
    assert "Traceback" not in err and "cannot rollback" not in err
    monkeypatch.undo()
    assert len(progress.Store(path).reviews()) == 3


def test_a_damaged_page_is_one_message_naming_the_file_which_is_left_as_it_is(tmp_path):
    path = tmp_path / "progress.sqlite3"
    _store_with_reviews(path, 400)
    data = bytearray(path.read_bytes())
    middle = len(data) // 4096 // 2 * 4096
    data[middle + 100:middle + 600] = os.urandom(500)
    path.write_bytes(data)
    with pytest.raises(InputError, match=r"progress.sqlite3 is damaged \(.+\): left as it is, with the reviews it "
                                         r"holds; choose another --db.") as err:
        progress.Store(path, param="--db")
    assert "\n" not in str(err.value)
    done = _review("--db", str(path), "--n", "1")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"llmest review: error: --db: {path} is damaged (")
    assert path.read_bytes() == data


WRITER = textwrap.dedent("""
    import os, sys, sqlite3
    from datetime import datetime, timedelta, timezone
    from fsrs import Rating
    from llmest.learn.progress import Store
    store, n, mode = Store(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    t0 = datetime(2026, 3, 2, tzinfo=timezone.utc)
    print("ready", flush=True)
    sys.stdin.readline()  # every writer starts at once
    for i in range(n):  # "seconds" holds the writer's process id, to see that the writers took turns
        if mode == "lockstep" and i:
            sys.stdin.readline()  # each review waits for the round that releases every writer at once
        store.review(f"drill:card-{i % 5}", "memory", [Rating.Again, Rating.Good][i % 2], i % 2 == 1,
                     t0 + timedelta(seconds=i), seconds=os.getpid())
        print(i + 1, flush=True)
    if mode == "hold":  # a transaction begun and written, never committed
        db = sqlite3.connect(sys.argv[1], isolation_level=None)
        db.execute("BEGIN IMMEDIATE")
        db.executemany("INSERT INTO reviews (card, topic, rating, correct, seconds, at) VALUES (?, ?, ?, ?, ?, ?)",
                       [("drill:lost", "memory", 3, 1, None, "2026-03-02T00:00:00+00:00")] * 2000)
        print("held", flush=True)
        sys.stdin.read()
""")


def _writer(path, n, mode):
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(n), mode],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=ENV)
    assert writer.stdout.readline().strip() == "ready"
    return writer


def _go(*writers):
    for writer in writers:
        writer.stdin.write("go\n")
        writer.stdin.flush()


def test_a_writer_killed_mid_transaction_loses_only_its_open_transaction(tmp_path):
    path = tmp_path / "progress.sqlite3"
    writer = _writer(path, 30, "hold")
    _go(writer)
    lines = []
    while (line := writer.stdout.readline().strip()) != "held":
        assert line, "the writer ended early"
        lines.append(line)
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    reopened = progress.Store(path)
    assert reopened.notice == ""
    assert len(reopened.reviews()) == 30 and "drill:lost" not in {r[0] for r in reopened.reviews()}
    assert sum(reopened.review_counts().values()) == 30


def test_a_writer_killed_while_writing_keeps_every_committed_review(tmp_path):
    path = tmp_path / "progress.sqlite3"
    writer = _writer(path, 100_000, "go")
    _go(writer)
    committed = 0
    while committed < 40:
        committed = int(writer.stdout.readline())
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    reviews = progress.Store(path).reviews()
    assert len(reviews) >= committed
    assert sum(progress.Store(path).review_counts().values()) == len(reviews)


def test_concurrent_writers_lose_no_review(tmp_path):
    path = tmp_path / "progress.sqlite3"
    progress.Store(path)
    writers = [_writer(path, 200, "lockstep") for _ in range(4)]
    for _ in range(200):  # each round releases the four writers together, so they contend for every write
        _go(*writers)
        for writer in writers:
            assert writer.stdout.readline().strip()
    for writer in writers:
        writer.communicate(timeout=300)
        assert writer.returncode == 0
    store = progress.Store(path)
    reviews = store.reviews()
    assert len(reviews) == 800 and store.review_counts() == {f"drill:card-{i}": 160 for i in range(5)}
    with sqlite3.connect(path) as db:
        writers_in_turn = [pid for (pid,) in db.execute("SELECT seconds FROM reviews ORDER BY id")]
    assert sum(a != b for a, b in zip(writers_in_turn, writers_in_turn[1:])) >= 3 * 200   # they did write at once
    # Each card's schedule is its reviews replayed through fsrs in the order they were committed: no update lost.
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT card, rating, at FROM reviews ORDER BY id").fetchall()
    scheduler = Scheduler(enable_fuzzing=False)
    for i in range(5):
        card_id = f"drill:card-{i}"
        card = Card(card_id=store.card(card_id).card_id, due=datetime.fromisoformat(rows[0][2]))
        for cid, rating, at in rows:
            if cid == card_id:
                card, _ = scheduler.review_card(card, Rating(rating), datetime.fromisoformat(at))
        assert card.to_dict() == store.card(card_id).to_dict()


def test_attempts_keep_the_answer_given_and_sessions_their_score(store):
    store.record_attempt("5.1", False, "100 days", T0)
    store.record_session("timed", ["memory"], {"correct": 3, "close": 1, "wrong": 1}, 400.0, T0)
    assert store.attempts() == [{"exercise": "5.1", "correct": 0, "answer": "100 days", "at": T0.isoformat()}]
    assert store.sessions()[0] | {} == {"kind": "timed", "topics": "memory", "correct": 3, "close": 1, "total": 5,
                                        "seconds": 400.0, "at": T0.isoformat()}
    with sqlite3.connect(store.path) as db:
        columns = {row[1] for row in db.execute("PRAGMA table_info(attempts)")}
    assert not columns & {"solution", "expected"}


@pytest.mark.parametrize("call, param", [
    (lambda s: s.review("", "memory", Rating.Good, True), "card_id"),
    (lambda s: s.review("x", "memory", 3, True), "rating"),
    (lambda s: s.review("x", "memory", Rating.Good, True, now="today"), "now"),
    (lambda s: progress.Store(s.path.parent), "path"),
    (lambda s: progress.Store(42), "path"),
])
def test_bad_input_to_the_store_names_its_parameter(store, call, param):
    with pytest.raises(InputError) as err:
        call(store)
    assert err.value.param == param


def test_a_device_or_pipe_is_refused_and_left_where_it_is(tmp_path):
    """Even as root, who may rename /dev/null: a path that is not a regular file is never moved aside."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    for path in ("/dev/null", pipe):
        with pytest.raises(InputError, match="is not a regular file") as err:
            progress.Store(path, param="--db")
        assert err.value.param == "--db"
    assert Path("/dev/null").is_char_device() and pipe.is_fifo() and [p.name for p in tmp_path.iterdir()] == ["pipe"]


# -- llmest review -----------------------------------------------------------------------------------------------
def _review(*argv, stdin=""):
    done = subprocess.run([sys.executable, "-m", "llmest", "review", *argv], input=stdin, capture_output=True,
                          text=True, env=ENV, timeout=120)
    assert "Traceback" not in done.stderr
    return done


def test_llmest_review_reads_piped_answers_grades_and_records_them(tmp_path):
    path = tmp_path / "p.sqlite3"
    first, drill = progress.due(progress.Store(path), topics="data")[:2]
    assert (first.item.kind, drill.item.kind) == ("flashcard", "drill")
    problem = generate(drill.item.prompt, 0, "medium")
    answers = f"\ny\nlots\n{problem.answer:.6g}\n\nn\n"   # "lots" is no number: asked again
    done = _review("--db", str(path), "--n", "3", "--topics", "data", stdin=answers)
    assert done.returncode == 0, done.stderr
    assert problem.question in done.stdout and "is not a number" in done.stdout
    assert done.stdout.count("Next review: ") == 3
    assert "Reviewed 3 cards: 2 right." in done.stdout
    reviews = progress.Store(path).reviews()
    assert [(r[0], r[3]) for r in reviews] == [(first.item.id, True), (drill.item.id, True),
                                               (progress.due(progress.Store(path), topics="data")[0].item.id, False)]


def test_the_end_of_the_input_or_ctrl_c_ends_the_session_with_its_summary(tmp_path, monkeypatch, capsys):
    path = tmp_path / "p.sqlite3"
    done = _review("--db", str(path), "--topics", "memory", stdin="\ny\n\n")
    assert done.returncode == 0 and done.stdout.rstrip().splitlines()[-1].startswith("Reviewed 1 card: 1 right.")

    class Interrupted:
        def readline(self):
            raise KeyboardInterrupt

        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stdin", Interrupted())
    assert cli.main(["review", "--db", str(path), "--topics", "memory"]) == 0
    assert "Reviewed 0 cards" in capsys.readouterr().out
    assert len(progress.Store(path).reviews()) == 1


def test_llmest_review_refuses_a_file_not_its_own_and_leaves_it_as_it_is(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    done = subprocess.run([sys.executable, "-m", "llmest", "review", "--db", "notes.txt", "--n", "1"], input="",
                          capture_output=True, text=True, env=ENV, timeout=120, cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr and done.stdout == ""
    assert done.stderr == f"llmest review: error: --db: notes.txt {NOT_OURS}\n"
    assert _files(tmp_path) == {"notes.txt": b"my notes\n"}


def test_llmest_review_plan_prints_the_days(tmp_path):
    done = _review("--db", str(tmp_path / "p.sqlite3"), "--plan", "--interview", "2027-01-15", "--minutes", "30",
                   "--today", "2027-01-01")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Study plan: 14 days to the interview on 2027-01-15, 30 minutes a day")
    assert lines[1].startswith("2027-01-01 Fri:") and lines[-1].startswith("2027-01-14 Thu: a mixed timed session")


@pytest.mark.parametrize("argv, option", [
    (["--topics", "astrology"], "--topics"),
    (["--plan", "--interview", "2027-02-30"], "--interview"),
    (["--plan", "--interview", "soon"], "--interview"),
    (["--plan", "--interview", "2026-01-01", "--today", "2027-01-01"], "--interview"),
    (["--plan"], "--interview"),
    (["--plan", "--interview", "2027-01-15", "--minutes", "0"], "--minutes"),
    (["--plan", "--interview", "2027-01-15", "--today", "yesterday"], "--today"),
    (["--level", "brutal"], "--level"),
    (["--n", "0"], "--n"),
])
def test_bad_options_of_llmest_review_are_named(tmp_path, argv, option):
    done = _review("--db", str(tmp_path / "p.sqlite3"), *argv)
    assert done.returncode == 2 and done.stderr.strip().splitlines()[-1].startswith(f"llmest review: error: {option}")


# -- the plan and the view ---------------------------------------------------------------------------------------
def _history(store):
    """Memory mostly missed, compute mostly known, over three days."""
    for day in range(3):
        for i, card in enumerate(cards("memory")[:4]):
            progress.review_flashcard(store, card, i == 0, T0 + timedelta(days=day, minutes=i))
        for i, card in enumerate(cards("compute")[:4]):
            progress.review_flashcard(store, card, i != 0, T0 + timedelta(days=day, minutes=i))


def test_accuracy_by_topic_and_the_topics_to_review_next(store):
    _history(store)
    accuracy = progress.accuracy_by_topic(store)
    assert set(accuracy) == {"memory", "compute"}
    assert [row[:3] for row in accuracy["memory"]] == [(T0.date() + timedelta(days=d), 0.25, 4) for d in range(3)]
    assert [row[1] for row in accuracy["compute"]] == [0.75] * 3
    store.review("drill:x", "memory", Rating.Good, True, T0 + timedelta(days=3))
    for _ in range(9):
        store.review("drill:y", "memory", Rating.Good, True, T0 + timedelta(days=4))
    day3, day4 = progress.accuracy_by_topic(store, "memory")["memory"][-2:]
    assert day3[1:] == (1.0, 1, 4 / 13)          # 3 right of 12, then 1 of 1: of the last 13
    # The last 20 drop the first two (right, wrong): 2 right of the 10 kept from the first days, 1 and 9.
    assert day4[1:] == (1.0, 9, 12 / 20)
    order = [s.topic for s in progress.next_topics(store, T0 + timedelta(days=5), topics=None)]
    assert set(order[:3]) == {"parameters", "data", "serving"} and order[3:] == ["memory", "compute"]  # unseen first


def test_a_study_plan_fills_each_day_and_favours_the_weak_topics(store):
    _history(store)
    today = T0.date() + timedelta(days=3)
    plan = progress.study_plan(store, today + timedelta(days=21), 30, today, topics="memory,compute")
    assert len(plan.days) == 21 and plan.order == ("memory", "compute")
    assert all(d.review_minutes + d.practice_minutes == 30 for d in plan.days)
    focus = [d.topic for d in plan.days[:-1]]
    assert focus.count("memory") > focus.count("compute") > 0 and plan.days[-1].topic == "all"
    due_by_day = {cid: card.due.date() for cid, (_, card) in store.cards().items()}
    assert sorted(cid for d in plan.days for cid in d.reviews) == sorted(due_by_day)  # each due card once
    for d in plan.days:
        assert all(due_by_day[cid] <= d.day for cid in d.reviews)
    assert plan.days[0].reviews  # the overdue ones come first
    assert str(plan).splitlines()[0].startswith("Study plan: 21 days")


@pytest.mark.parametrize("kwargs, param", [
    (dict(interview="2027-13-01"), "interview"), (dict(interview=20270115), "interview"),
    (dict(interview="2026-12-31"), "interview"), (dict(minutes_per_day=0), "minutes_per_day"),
    (dict(minutes_per_day=1e9), "minutes_per_day"), (dict(topics="astrology"), "topics"),
    (dict(today="now"), "today"),
])
def test_bad_input_to_the_plan_names_its_parameter(store, kwargs, param):
    args = dict(interview="2027-01-15", minutes_per_day=30, today=date(2027, 1, 1)) | kwargs
    with pytest.raises(InputError) as err:
        progress.study_plan(store, **args)
    assert err.value.param == param


def test_the_widgets_record_into_a_store_and_only_when_given_one(store):
    from llmest import widgets

    default = progress.default_path()
    deck = widgets.flashcard_deck(topics="data", store=store)
    deck._reveal()
    deck.grade(False)
    session = widgets.timed_session(n=2, seed=3, topics="memory", store=store)
    session.answer(f"{session.current.answer:.6g}")
    session._advance()
    session.answer("1")
    session._advance()
    assert [r[3] for r in store.reviews()] == [False, True, False]
    assert store.sessions()[0]["total"] == 2 and store.sessions()[0]["correct"] == 1
    box = widgets.exercise_widget(__import__("llmest").exercise("5.1"), store=store)
    box.entry.value = "100 days"
    box.check_button.click()
    assert store.attempts()[0]["answer"] == "100 days"
    before = default.exists()
    plain = widgets.flashcard_deck(topics="data")
    plain._reveal()
    plain.grade(True)
    assert default.exists() == before


def test_the_progress_view_and_its_plot(store):
    import matplotlib

    matplotlib.use("Agg")
    from llmest import plots, widgets

    _history(store)
    now = T0 + timedelta(days=3)
    view = widgets.progress_view(store, now=now)
    midnight = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), timezone.utc)
    due_today = sum(card.due < midnight for _, card in store.cards().values())
    assert 0 < due_today < 8 and f"Due today: {due_today}</b>" in view.due.value
    assert "memory: 25% right (12 reviews)" in view.next.value
    ax = plots.accuracy_by_topic(progress.accuracy_by_topic(store))
    assert sorted(line.get_label() for line in ax.get_lines()) == ["compute", "memory"]
    assert sorted(list(line.get_ydata()) for line in ax.get_lines()) == [[25.0] * 3, [75.0] * 3]


BAD = ["0", "-1", "nan", "inf", "1e400", "", "abc", "7B", "1.5", "9" * 5000, "x" * 5000]


def test_no_bad_value_of_an_option_of_llmest_review_escapes(tmp_path, monkeypatch, capsys):
    import io

    monkeypatch.setenv(progress.ENV_VAR, str(tmp_path / "env.sqlite3"))
    monkeypatch.chdir(tmp_path)
    options = {"--n": BAD + ["201"], "--topics": BAD + ["memory,,x"], "--level": BAD,
               "--db": ["", "x" * 5000, str(tmp_path), "/proc/x", "/proc/x/y.db", "/dev/null"],
               "--interview": BAD + ["2027-02-30", "1999-01-01"], "--minutes": BAD + ["721"],
               "--today": BAD + ["2027-02-30"]}
    wrong = []
    for option, values in options.items():
        for value in values:
            plan = ["--plan", "--interview", "2027-01-15"] if option in ("--minutes", "--today") else \
                ["--plan"] if option == "--interview" else []
            monkeypatch.setattr(sys, "stdin", io.StringIO(""))
            try:
                status = cli.main(["review", *plan, option, value])
            except SystemExit as exit_:
                status = exit_.code
            err = capsys.readouterr().err.strip().splitlines()
            named = status == 2 and err and err[-1].startswith(f"llmest review: error: {option}") or \
                status == 2 and err and err[-1].startswith(f"llmest review: error: argument {option}")
            if not named:
                wrong.append((option, value[:20], status, err[-1:]))
    assert wrong == []

"""Spaced repetition with FSRS (the ``fsrs`` package): the cards to schedule, a grade as an FSRS rating, and the
cards due.

A card is a flashcard (``flashcard:<its English front>``, the same in both languages) or a drill template
(``drill:<template key>``: each review draws a new problem from the template). FSRS keeps a card's stability and
difficulty; a rating of Again sends it back to relearning (minutes), Hard, Good and Easy push its next review further
out the better the recall."""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from ...core._validate import InputError, check_choice, quote
from ...core.i18n import N_, _
from ...core.report import Finding, Report

GRADES = ("correct", "close", "wrong", "empty", "invalid")
GRADE_NAMES = {"correct": N_("correct"), "close": N_("close"), "wrong": N_("wrong"), "empty": N_("empty"),
               "invalid": N_("invalid")}
# A correct drill answered within this share of its time is rated Easy; merely correct is Good.
FAST_SHARE = 1 / 3


def scheduler():
    """FSRS's scheduler with the package's default parameters and retention (0.9). Fuzzing (a random spread of
    the intervals) is off so that the same reviews give the same schedule, in the chapter and in tests."""
    from fsrs import Scheduler

    return Scheduler(enable_fuzzing=False)


def rating(grade: str, seconds=None, limit_s=None):
    """The FSRS rating of a graded answer: wrong, empty or invalid -> Again; close (within 2×) -> Hard; correct ->
    Good, or Easy when answered within a third of ``limit_s``. A flashcard known is "correct", missed "wrong"."""
    from fsrs import Rating

    check_choice("grade", grade, GRADES)
    if grade == "correct":
        fast = seconds is not None and limit_s is not None and seconds <= limit_s * FAST_SHARE
        return Rating.Easy if fast else Rating.Good
    return Rating.Hard if grade == "close" else Rating.Again


def interval_text(delta: timedelta) -> str:
    """An interval as a schedule says it: "10 min", "5 h", "1 day", "23 days"."""
    minutes = delta.total_seconds() / 60
    if minutes < 90:
        return _("{n} min").format(n=f"{minutes:.0f}")
    if minutes < 22 * 60:
        return _("{n} h").format(n=f"{minutes / 60:.0f}")
    days = round(minutes / (24 * 60))
    return (_("{n} day") if days == 1 else _("{n} days")).format(n=days)


def next_review_text(delta: timedelta) -> str:
    """When a card comes back, as a review says it: "next review in 2 days"."""
    return _("next review in {interval}").format(interval=interval_text(delta))


def review_log(reviews) -> Finding:
    """Reviews as a log that shows itself, a line each: when, the grade (in the language shown) and its FSRS
    rating, and when the card comes back. ``reviews``: (when, grade, due) each, ``due`` the card's next due time
    after that review (what ``Store.review`` returns)."""
    if not isinstance(reviews, (list, tuple)) or not reviews or not all(
            isinstance(entry, (list, tuple)) and len(entry) == 3 for entry in reviews):
        raise InputError("reviews", f"reviews == {quote(reviews)}, must be a list of (when, grade, due).")
    rows = []
    for when, grade, due in reviews:
        when, due = as_utc(when, "when"), as_utc(due, "due")
        rows.append(dict(when=when.isoformat(), grade=grade, rating=rating(grade).name, due=due.isoformat(),
                         wait_s=(due - when).total_seconds()))
    return Finding(dict(reviews=rows), _review_log)


def _review_log(f: dict) -> Report:
    lines = [f"{datetime.fromisoformat(r['when']):%Y-%m-%d %H:%M}  {_(GRADE_NAMES[r['grade']]):>7} "
             f"({r['rating']:>5})  {next_review_text(timedelta(seconds=r['wait_s']))}" for r in f["reviews"]]
    return Report("", blocks=("\n".join(lines),))  # lined up in columns: kept as written on a page too


def as_utc(when, param: str = "now") -> datetime:
    """A datetime in UTC (a naive one is taken as UTC already), as FSRS requires."""
    if not isinstance(when, datetime):
        raise InputError(param, _("{name} == {value}, must be a datetime.").format(name=param, value=quote(when)))
    return when.replace(tzinfo=timezone.utc) if when.tzinfo is None else when.astimezone(timezone.utc)


def card_from_json(state, card_id: str, due):
    """The fsrs.Card stored as ``state``, or a new one due at ``due`` when there is none yet."""
    from fsrs import Card

    if state:
        return Card.from_json(state)
    return Card(card_id=zlib.crc32(card_id.encode()), due=due)


@dataclass(frozen=True)
class Item:
    """Something to review: a flashcard or a drill template."""
    id: str
    topic: str
    kind: str       # "flashcard" or "drill"
    prompt: str     # the flashcard's front, or the template's key


def catalog(topics=None) -> list[Item]:
    """Every card to review, flashcards then drill templates, for the chosen topics (None for all)."""
    from ..drills import TEMPLATES, chosen_topics
    from ..flashcards import cards

    chosen = chosen_topics(topics)
    return ([Item(flashcard_id(card), card.topic, "flashcard", card.front) for card in cards(topics)]
            + [Item(f"drill:{t.key}", t.topic, "drill", t.key) for t in TEMPLATES.values() if t.topic in chosen])


def flashcard_id(card) -> str:
    return f"flashcard:{card.key}"


def _new_place(fresh):
    """The order of new cards, so that a session meets every topic early: (turn within the topic, topic)."""
    place = {}
    for topic in dict.fromkeys(i.topic for i in fresh):
        ours = [i for i in fresh if i.topic == topic]
        turns = {i.id: n for kind in ("flashcard", "drill") for n, i in enumerate(x for x in ours if x.kind == kind)}
        ranked = sorted(ours, key=lambda i: (turns[i.id], i.kind != "flashcard"))
        place.update({i.id: (n, len(place)) for n, i in enumerate(ranked)})
    return lambda i: place[i.id]


@dataclass(frozen=True)
class Due:
    item: Item
    due: datetime | None   # None for a card never reviewed
    reviews: int


def due(store, now=None, topics=None) -> list[Due]:
    """The cards to review at ``now`` (UTC, default the present): those due by the end of that day, earliest
    first, then the new ones: a card of each topic in turn, within a topic a flashcard and a drill in turn."""
    now = datetime.now(timezone.utc) if now is None else as_utc(now)
    end_of_day = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), timezone.utc)
    known = store.cards()
    counts = store.review_counts()
    items = catalog(topics)
    scheduled = sorted(((known[i.id][1].due, i) for i in items if i.id in known and known[i.id][1].due < end_of_day),
                       key=lambda pair: (pair[0], pair[1].id))
    fresh = [i for i in items if i.id not in known]
    fresh = [Due(i, None, 0) for i in sorted(fresh, key=_new_place(fresh))]
    return [Due(i, when, counts.get(i.id, 0)) for when, i in scheduled] + fresh


def review_flashcard(store, card, known: bool, now=None):
    """Record a flashcard (a ``flashcards.Card``) as known (Good) or missed (Again); returns its next schedule."""
    return store.review(flashcard_id(card), card.topic, rating("correct" if known else "wrong"), bool(known), now)


def review_drill(store, problem, verdict, seconds=None, limit_s=None, now=None):
    """Record a graded drill problem against its template's card (see :func:`rating`); returns its next
    schedule."""
    return store.review(f"drill:{problem.template}", problem.topic, rating(verdict.grade, seconds, limit_s),
                        verdict.grade == "correct", now, seconds)


def due_flashcards(store, deck, now=None) -> list:
    """The flashcards of ``deck`` to review at ``now``: the due ones, earliest first, then the new ones in the
    deck's order."""
    by_id = {flashcard_id(card): card for card in deck}
    listed = due(store, now, sorted({card.topic for card in deck}) or None)
    new = {d.item.id for d in listed if d.due is None}
    return ([by_id[d.item.id] for d in listed if d.due is not None and d.item.id in by_id]
            + [card for card in deck if flashcard_id(card) in new])

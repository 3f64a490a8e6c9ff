"""What the reviews say: accuracy by topic over time, the topics to review next, and a study plan to an interview."""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone

from ...core._validate import InputError, check_int, quote
from ..drills import chosen_topics
from ...core.i18n import N_, _, language
from ...core.report import Finding, Report, Shows
from ...core.units import format_percent
from .schedule import Due, as_utc, catalog, due
from .store import Store

RECENT = 20            # a topic's accuracy is that of its last RECENT reviews
FLOOR = 0.2            # a topic's share of practice is (1 - accuracy) + FLOOR: a strong topic still comes back
# Minutes a review takes: a flashcard is recalled in about one; a drill gets the timed session's three minutes.
MINUTES = {"flashcard": 1, "drill": 3}
MAX_DAYS = 730
SHOWN_DUE = 5          # due cards a progress summary lists
TOPIC_NAMES = {"parameters": N_("parameters"), "memory": N_("memory"), "compute": N_("compute"), "data": N_("data"),
               "serving": N_("serving")}
WEEKDAYS = (N_("Mon"), N_("Tue"), N_("Wed"), N_("Thu"), N_("Fri"), N_("Sat"), N_("Sun"))


def topic_name(topic: str) -> str:
    """A topic in the reader's language."""
    return _(TOPIC_NAMES[topic]) if topic in TOPIC_NAMES else topic


def store_summary(store) -> Finding:
    """How much a store holds, showing itself: its reviews and the cards they scheduled."""
    if not isinstance(store, Store):
        raise InputError("store", f"store == {quote(store)}, must be a progress.Store.")
    return Finding(dict(reviews=len(store.reviews()), cards=len(store.cards())),
                   _store_summary)


def _store_summary(f: dict) -> Report:
    return Report("", lines=(_("{reviews} reviews of {cards} cards").format(reviews=f["reviews"], cards=f["cards"]),))


def _padded(text: str, width: int) -> str:
    """``text`` padded to ``width`` columns, a Chinese character taking two."""
    return text + " " * (width - sum(1 + (unicodedata.east_asian_width(c) in "WF") for c in text))


def _joined(parts, english: str, chinese: str) -> str:
    return (chinese if language() == "zh" else english).join(parts)


def accuracy_by_topic(store, topics=None) -> dict:
    """{topic: [(day, share right that day, reviews that day, share right of its last RECENT reviews by the end
    of that day), ...]} by UTC day, oldest first, for the topics reviewed."""
    chosen = chosen_topics(topics)
    marks = defaultdict(list)
    for _card, topic, _rating, correct, _seconds, at in store.reviews():
        if topic in chosen:
            marks[topic].append((at.date(), correct))
    found = {}
    for topic in (t for t in chosen if t in marks):
        rows = []
        for day in dict.fromkeys(d for d, _ in marks[topic]):
            today = [c for d, c in marks[topic] if d == day]
            recent = [c for d, c in marks[topic] if d <= day][-RECENT:]
            rows.append((day, sum(today) / len(today), len(today), sum(recent) / len(recent)))
        found[topic] = rows
    return found


@dataclass(frozen=True)
class TopicStanding:
    topic: str
    accuracy: float | None     # over its last RECENT reviews; None before any
    reviews: int
    due: int                   # cards due by the end of the day, new ones included


def next_topics(store, now=None, topics=None, due_cards=None) -> list[TopicStanding]:
    """The topics, weakest first: never reviewed, then by recent accuracy, then the most cards due."""
    chosen = chosen_topics(topics)
    due_cards = due(store, now, topics) if due_cards is None else due_cards
    marks = defaultdict(list)
    for _card, topic, _rating, correct, _seconds, _at in store.reviews():
        marks[topic].append(correct)
    rows = [TopicStanding(t, sum(marks[t][-RECENT:]) / len(marks[t][-RECENT:]) if marks[t] else None,
                          len(marks[t]), sum(d.item.topic == t for d in due_cards)) for t in chosen]
    return sorted(rows, key=lambda r: (r.accuracy is not None, r.accuracy or 0, -r.due))


@dataclass(frozen=True)
class Progress(Shows):
    """What the reviews say on ``today`` (a date): the cards due (due ones first, then new), accuracy by topic over
    time and the topics to review next, weakest first."""

    due: list[Due]
    accuracy: dict
    next_topics: list[TopicStanding]
    today: date | None = None

    @property
    def scheduled(self) -> list[Due]:
        """The cards due that have been reviewed before (the rest of ``due`` is new)."""
        return [d for d in self.due if d.due is not None]

    @property
    def new(self) -> int:
        return len(self.due) - len(self.scheduled)

    def report(self) -> Report:
        """What a reader sees: the cards due on ``today``, the first few of them, the topics to review next,
        weakest first."""
        shown_due = [f"  {d.due:%H:%M} {_padded(topic_name(d.item.topic), 10)} {d.item.prompt[:70]}"
                     for d in self.scheduled[:SHOWN_DUE]]
        lines = [_("Review next:")]
        for s in self.next_topics:
            shown = (_("not reviewed yet") if s.accuracy is None else _("{share} right of its last {n}").format(
                share=format_percent(s.accuracy, 0), n=min(s.reviews, RECENT)))
            lines.append("  " + _("{topic} {accuracy}; {due} to review today").format(
                topic=_padded(topic_name(s.topic), 10), accuracy=shown, due=s.due))
        day = "" if self.today is None else f"{self.today:%Y-%m-%d}"
        data = {"today": day or None, "due": len(self.scheduled), "new": self.new,
                "shown": [{"due": d.due.isoformat(), "topic": d.item.topic, "id": d.item.id}
                          for d in self.scheduled[:SHOWN_DUE]],
                "next_topics": [{"topic": s.topic, "accuracy": s.accuracy, "reviews": s.reviews, "due": s.due}
                                for s in self.next_topics]}
        # Lined up in columns: a block each, kept as written on a page too.
        blocks = tuple("\n".join(part) for part in (shown_due, lines) if part)
        # A review takes every card due by the end of the day at once: the times say when each falls due.
        notes = (_("A review (llmest review, the flashcards) takes all of the day's cards now, earliest first; the "
                   "times are when each falls due."),) if self.scheduled else ()
        return Report(_("{day}: {due} cards due, {new} new").format(day=day, due=len(self.scheduled), new=self.new),
                      blocks=blocks, notes=notes, data=data)


def progress(store, now=None, topics=None) -> Progress:
    """The cards due (due ones first, then new), accuracy by topic over time and the topics to review next."""
    due_cards = due(store, now, topics)
    today = as_utc(datetime.now(timezone.utc) if now is None else now).date()
    return Progress(due_cards, accuracy_by_topic(store, topics), next_topics(store, now, topics, due_cards), today)


@dataclass(frozen=True)
class PlanDay:
    day: date
    reviews: tuple        # the ids of the cards to review that day
    review_minutes: int
    topic: str            # the topic of the day's new problems ("all" on the last day: a mixed timed session)
    practice_minutes: int


@dataclass(frozen=True)
class StudyPlan(Shows):
    """A day-by-day plan to the ``interview``: each day's reviews and practice (``PlanDay``), the topics weakest
    first. It shows itself: its first line, then one a day."""

    interview: date
    minutes_per_day: int
    order: tuple                      # the topics, weakest first
    days: list = field(default_factory=list)

    def report(self) -> Report:
        head = (_("Study plan: {days} day to the interview on {interview}, {minutes} minutes a day; weakest topics "
                  "first: {order}.") if len(self.days) == 1 else
                _("Study plan: {days} days to the interview on {interview}, {minutes} minutes a day; weakest topics "
                  "first: {order}."))
        lines = []
        for d in self.days:
            review = _("review {n} due card ({minutes} min)") if len(d.reviews) == 1 else \
                _("review {n} due cards ({minutes} min)")
            parts = [review.format(n=len(d.reviews), minutes=d.review_minutes)] if d.reviews else []
            if d.practice_minutes:
                what = _("a mixed timed session") if d.topic == "all" else \
                    _("{topic} drills").format(topic=topic_name(d.topic))
                parts.append(_("{what} ({minutes} min)").format(what=what, minutes=d.practice_minutes))
            lines.append(_("{day} {weekday}: {plan}").format(
                day=d.day.isoformat(), weekday=_(WEEKDAYS[d.day.weekday()]),
                plan=_joined(parts, "; ", "；") or _("rest")))
        data = {"interview": self.interview.isoformat(), "minutes_per_day": self.minutes_per_day,
                "order": list(self.order),
                "days": [{"day": d.day.isoformat(), "reviews": list(d.reviews), "review_minutes": d.review_minutes,
                          "topic": d.topic, "practice_minutes": d.practice_minutes} for d in self.days]}
        order = _joined(map(topic_name, self.order), ", ", "、")
        return Report(head.format(days=len(self.days), interview=self.interview.isoformat(),
                                  minutes=self.minutes_per_day, order=order), lines=tuple(lines), data=data)


def _day(value, param: str) -> date:
    if isinstance(value, datetime):
        return as_utc(value, param).date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise InputError(param, _("{name} == {value}, must be a date such as 2027-01-15 (year-month-day).").format(
        name=param, value=quote(value)))


def plan_inputs(interview, minutes_per_day, today=None, topics=None) -> tuple:
    """The first day, the interview's day, the minutes a day and the topics of a study plan, checked."""
    minutes = check_int("minutes_per_day", minutes_per_day, minimum=5, maximum=720)
    start = _day(datetime.now(timezone.utc) if today is None else today, "today")
    end = _day(interview, "interview")
    if not 0 < (end - start).days <= MAX_DAYS:
        raise InputError("interview", _("interview == {day}, must be 1 to {most} days after today ({today}).").format(
            day=end.isoformat(), most=MAX_DAYS, today=start.isoformat()))
    return start, end, minutes, chosen_topics(topics)


def study_plan(store, interview, minutes_per_day: int, today=None, topics=None) -> StudyPlan:
    """A day-by-day plan from ``today`` (UTC, default the present) to the day before ``interview`` (a date or
    "YYYY-MM-DD"), ``minutes_per_day`` each: first the cards that fall due that day (overdue ones on the first
    day; what does not fit moves to the next), then new drill problems on one topic, the weak topics more often
    (each topic's share is 1 - its accuracy + 0.2), and on the last day a mixed timed session. The reviews are
    the ones scheduled now: as you review, run the plan again."""
    start, end, minutes, chosen = plan_inputs(interview, minutes_per_day, today, topics)
    standing = next_topics(store, datetime.combine(start, datetime.min.time(), timezone.utc), chosen)
    kinds = {item.id: item.kind for item in catalog(chosen)}
    scheduled = sorted((card.due.date(), cid) for cid, (topic, card) in store.cards().items() if cid in kinds)
    weights = {s.topic: 1 - (s.accuracy or 0) + FLOOR for s in standing}
    credit = dict.fromkeys(weights, 0.0)
    waiting, days = [], []
    for n in range((end - start).days):
        day = start + timedelta(days=n)
        waiting += [cid for when, cid in scheduled if when <= day and cid not in waiting]
        scheduled = [(when, cid) for when, cid in scheduled if when > day]
        reviews, used = [], 0
        while waiting and used + MINUTES[kinds[waiting[0]]] <= minutes:
            used += MINUTES[kinds[waiting[0]]]
            reviews.append(waiting.pop(0))
        if n == (end - start).days - 1 and n > 0:
            topic = "all"
        else:  # smooth weighted round robin: each topic gains its weight, the richest is picked and pays the total
            for t in credit:
                credit[t] += weights[t]
            topic = max(credit, key=lambda t: (credit[t], -list(credit).index(t)))
            credit[topic] -= sum(weights.values())
        days.append(PlanDay(day, tuple(reviews), used, topic, minutes - used))
    return StudyPlan(end, minutes, tuple(s.topic for s in standing), days)

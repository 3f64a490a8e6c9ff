"""Practice: the exercise box, flashcards and timed drill sessions."""

from __future__ import annotations

import html
import math

import ipywidgets as w

from ...core import _validate as v
from ...learn.grading import INTERFACES, entry_placeholder
from ...core.i18n import N_, _
from .form import FIT, answer_width, row


GRADE_COLORS = {"correct": "#1b7f3b", "close": "#9a6700", "wrong": "#b00020", "empty": "#555", "invalid": "#b00020",
                "received": "#555"}
# The topics and levels of cards and drills, as a header names them.
NAMES = {"parameters": N_("parameters"), "memory": N_("memory"), "compute": N_("compute"), "data": N_("data"),
         "serving": N_("serving"), "easy": N_("easy"), "medium": N_("medium"), "hard": N_("hard")}


def named(name: str) -> str:
    """A topic or level in the reader's language."""
    return _(NAMES[name]) if name in NAMES else name


# The library names the entry by its parameter ("answer == 'lots' is not a number"); the reader sees a box without
# a name, so a message calls it what it is to them.
def verdict_html(result) -> str:
    return f'<span style="color:{GRADE_COLORS[result.grade]}">{html.escape(result.shown)}</span>'


def entry_box(unit: str) -> w.Text:
    """A text entry whose placeholder is an example in ``unit``, wide enough for it and for the longest answer with
    its unit (:func:`.form.answer_width`), narrowed to the page on a phone. Its value follows every keystroke, so
    that a verdict can be cleared as the entry changes; Enter is :func:`on_enter`."""
    entry = w.Text(continuous_update=True, layout=w.Layout(max_width=FIT))
    fit_placeholder(entry, unit)
    return entry


def fit_placeholder(entry: w.Text, unit: str) -> None:
    entry.placeholder = entry_placeholder(unit)
    entry.layout.width = answer_width(entry.placeholder)


def on_enter(entry: w.Text, callback) -> None:
    """Call ``callback()`` when Enter is pressed in ``entry``. The front end sends a "submit" message on Enter;
    ipywidgets 8 deprecates ``Text.on_submit``, and the replacement it names (observing the value with
    continuous_update off) also fires when the box loses focus and could not clear a verdict while typing, so the
    message is read here with the widget's public ``on_msg``."""
    def handle(_widget, content, _buffers):
        if isinstance(content, dict) and content.get("event") == "submit":
            callback()

    entry.on_msg(handle)


def exercise_widget(ex, store=None) -> w.VBox:
    """Question, an entry box, Check and Hint buttons, and the verdict. Enter checks too; the verdict goes when
    the entry changes. With a progress ``store``, each graded attempt is recorded (the answer typed, not the
    solution)."""
    entry = entry_box(ex.unit)
    check = w.Button(description=_("Check"), button_style="primary", layout=w.Layout(width="6em"))
    hint = w.Button(description=_("Hint"), layout=w.Layout(width="6em"))
    verdict = w.HTML()
    hints = w.HTML()

    def on_check(_=None):
        result = ex.check(entry.value)
        verdict.value = verdict_html(result)
        if store is not None and result.grade not in ("empty", "invalid"):
            store.record_attempt(ex.key, result.correct, entry.value)

    def on_hint(_=None):
        hints.value = "<br>".join(html.escape(line) for line in ex.hint().splitlines())

    def on_change(_change):
        verdict.value = ""

    check.on_click(on_check)
    hint.on_click(on_hint)
    on_enter(entry, on_check)
    entry.observe(on_change, names="value")
    title = _("Exercise {key}.").format(key=ex.key)
    box = w.VBox([w.HTML("<b>{}</b> {}".format(title, html.escape(ex.shown_question))),
                  row(entry, check, hint), verdict, hints])
    box.add_class("llmest-exercise")  # a stable handle for the browser test
    box.entry, box.check_button, box.hint_button, box.verdict, box.hints = entry, check, hint, verdict, hints
    return box


INTERFACES["exercise"] = exercise_widget


class FlashcardDeck:
    """The numbers to know, one card at a time: think of the answer, reveal it, and say whether you knew it.
    At the end, a summary and the cards you missed, which you can go through again. With a progress ``store``
    (``llmest.learn.progress.Store``) each answer is a review: the deck holds the cards due, earliest first, then the
    new ones, and what you say schedules each card's next review."""

    def __init__(self, topics=None, seed: int = 0, store=None):
        import random

        from ...learn.flashcards import cards

        self.store = store
        self.cards = cards(topics)
        random.Random(seed).shuffle(self.cards)
        if store is not None:
            from ...learn.progress import due_flashcards

            self.cards = due_flashcards(store, self.cards)
        self.progress, self.front, self.back, self.summary = w.HTML(), w.HTML(), w.HTML(), w.HTML()
        self.reveal = w.Button(description=_("Show answer"), button_style="primary")
        self.knew = w.Button(description=_("I knew it"), button_style="success")
        self.missed = w.Button(description=_("I didn't"), button_style="warning")
        self.again = w.Button(description=_("Go through the missed cards"))
        self.reveal.on_click(self._reveal)
        self.knew.on_click(lambda _: self.grade(True))
        self.missed.on_click(lambda _: self.grade(False))
        self.again.on_click(lambda _: self._start([c for c, known in self.results if not known]))
        self.widget = w.VBox([self.progress, self.front, self.back, w.HBox([self.reveal, self.knew, self.missed]),
                              self.summary, self.again])
        self.widget.add_class("llmest-flashcards")
        self._start(self.cards)

    def _start(self, cards):
        self.deck, self.index, self.results = list(cards), 0, []
        self.summary.value = ""
        self._show()

    def _show(self):
        done = self.index >= len(self.deck)
        for button in (self.reveal, self.knew, self.missed):
            button.layout.display = "none" if done else None
        self.again.layout.display = "none"
        self.back.value = ""
        self.knew.disabled = self.missed.disabled = True
        if done:
            self._finish()
            return
        card = self.deck[self.index]
        self.progress.value = "<small>{} · {}</small>".format(
            _("card {n} of {total}").format(n=self.index + 1, total=len(self.deck)), html.escape(named(card.topic)))
        self.front.value = f"<b>{html.escape(card.front)}</b>"

    def _reveal(self, _=None):
        self.back.value = html.escape(self.deck[self.index].back)
        self.knew.disabled = self.missed.disabled = False

    def grade(self, known: bool):
        """Record the current card as known or missed and move on (nothing once the deck is done)."""
        if self.index >= len(self.deck):
            return
        self.results.append((self.deck[self.index], known))
        if self.store is not None:
            from ...learn.progress import review_flashcard

            review_flashcard(self.store, self.deck[self.index], known)
        self.index += 1
        self._show()

    def _finish(self):
        known = sum(k for _, k in self.results)
        missed = [card for card, k in self.results if not k]
        self.progress.value = ""
        self.front.value = "<b>{}</b>".format(_("Done: you knew {known} of {total}.").format(known=known,
                                                                                          total=len(self.results)))
        rows = "".join(f"<li>{html.escape(c.front)}: <b>{html.escape(c.back)}</b></li>" for c in missed)
        self.summary.value = _("To review:") + f"<ul>{rows}</ul>" if missed else _("Nothing to review.")
        self.again.layout.display = None if missed else "none"

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


class TimedSession:
    """Interview practice: ``n`` problems from the drill generator, a clock per question, the score, and a review
    of the misses with their worked solutions. A chained ("hard") problem is asked step by step, each step graded
    on its own clock. Nothing is timed until Start is pressed, so running a whole chapter
    does not spend the first question's time; when the time for a question runs out, what is typed is graded.

    The clock is a hidden Play widget: the page steps it once a second and each step reads the time here, so the
    clock runs only where the session is shown, and stops with the page. With a progress ``store``, each graded
    answer is a review of its template's card and the score is kept."""

    def __init__(self, n: int = 5, seed: int = 0, topics=None, level: str = "medium", seconds_per_question=180,
                 store=None):
        import time

        from ...learn.drills import drill_set

        v.check_int("seconds_per_question", seconds_per_question, minimum=10, maximum=3600)
        self.problems = drill_set(seed, n, topics, level)
        # (problem, step): each graded step is asked in turn, a problem without parts as its one step
        self.items = [(p, k) for p in self.problems for k in range(len(p.graded))]
        self._numbers = [i for i, p in enumerate(self.problems) for _ in p.graded]
        self.limit = seconds_per_question
        self.store = store
        self._clock = time.monotonic
        self._started = None  # when the current question was shown
        self.header, self.question, self.verdict, self.review = w.HTML(), w.HTML(), w.HTML(), w.HTML()
        self.timer = w.HTML()
        self.ticker = w.Play(interval=1000, min=0, max=self.limit + 60, show_repeat=False,
                             layout=w.Layout(display="none"))
        self.start_button = w.Button(description=_("Start"), button_style="primary")
        self.entry = entry_box(self.problems[0].graded[0].unit)
        self.submit = w.Button(description=_("Submit"), button_style="primary")
        self.next = w.Button(description=_("Next question"))
        self.start_button.on_click(lambda _: self.start())
        self.submit.on_click(lambda _: self.answer(self.entry.value))
        on_enter(self.entry, lambda: self.answer(self.entry.value))
        self.entry.observe(self._entry_changed, names="value")
        self.ticker.observe(self._tick, names="value")
        self.next.on_click(lambda _: self._advance())
        self.widget = w.VBox([row(self.header, self.timer), self.question, self.start_button,
                              row(self.entry, self.submit), self.verdict, self.next, self.review, self.ticker])
        self.widget.add_class("llmest-timed-session")
        self.timer.add_class("llmest-timer")
        self.start_button.add_class("llmest-start")
        self.results: list[tuple] = []   # (problem, verdict, seconds, timed_out, step)
        self.index = 0
        self._show_intro()

    @property
    def started(self) -> bool:
        return self._started is not None

    @property
    def done(self) -> bool:
        """Every question answered: the summary is shown and nothing is asked."""
        return self.index >= len(self.items)

    @property
    def current(self):
        """The problem being asked; None once the session is done."""
        return None if self.done else self.items[self.index][0]

    @property
    def current_part(self):
        """The step being asked: a part of a chained problem, or the whole problem as its one part; None once the
        session is done."""
        if self.done:
            return None
        problem, k = self.items[self.index]
        return problem.graded[k]

    def elapsed(self) -> float:
        """Seconds on the current question (0 before Start)."""
        return self._clock() - self._started if self.started else 0.0

    def _show_intro(self):
        n, minutes, seconds = len(self.problems), self.limit // 60, self.limit % 60
        topics = _(", ").join(dict.fromkeys(named(p.topic) for p in self.problems))
        clock = f"{minutes}:{seconds:02d}"
        questions = (_("{n} question") if n == 1 else _("{n} questions")).format(n=n)
        header = (_("Timed practice: {questions} in {steps} graded steps, {clock} each step").format(
            questions=questions, steps=len(self.items), clock=clock) if len(self.items) > n else
            _("Timed practice: {questions}, {clock} each").format(questions=questions, clock=clock))
        self.header.value = f"<b>{header}</b>"
        self.question.value = _("Topics: {topics}. Each question has its own clock; when it runs out, what you have "
                                "typed is graded. Press Start when you are ready: question 1 and its clock start "
                                "then.").format(topics=html.escape(topics))
        for part in (self.entry, self.submit, self.next, self.timer):
            part.layout.display = "none"

    def start(self):
        """Show question 1 and start its clock (once; later presses do nothing)."""
        if self.started:
            return
        self.start_button.layout.display = "none"
        for part in (self.entry, self.submit, self.timer):
            part.layout.display = None
        self._show_question()

    def _advance(self):
        if len(self.results) <= self.index:
            return  # the current question is not graded yet
        self.index += 1
        if self.done:
            self._finish()
        else:
            self._show_question()

    def _show_question(self):
        from ...learn.drills.problem import LETTERS

        p, k = self.items[self.index]
        step = _(", step ({letter}) of {steps}").format(letter=LETTERS[k], steps=len(p.parts)) if p.parts else ""
        number = _("Question {n} of {total}").format(n=self._numbers[self.index] + 1, total=len(self.problems))
        self.header.value = f"<b>{number}{step}</b> · {named(p.topic)} · {named(p.level)}&nbsp;"
        now = ("<br><b>{}</b> {}".format(_("Now ({letter}):").format(letter=LETTERS[k]),
                                         html.escape(p.parts[k].question)) if p.parts else "")
        self.question.value = html.escape(p.question) + now
        self.entry.value, self.entry.disabled, self.submit.disabled = "", False, False
        fit_placeholder(self.entry, self.current_part.unit)
        self.verdict.value = ""
        self.next.layout.display = "none"
        self._started = self._clock()
        self.ticker.value = 0
        self.ticker.playing = True
        self._tick()

    def _entry_changed(self, _change):
        if self.started and not self.submit.disabled:
            self.verdict.value = ""  # a message about what was typed before

    def _tick(self, change=None):
        if not self.started or self.index >= len(self.items) or self.submit.disabled:
            return
        left = max(self.limit - self.elapsed(), 0)
        shown = math.ceil(left)  # 3:00 as the clock starts, 0:00 only when the time is up
        self.timer.value = "<span>{}</span>".format(_("{clock} left").format(clock=f"{shown // 60}:{shown % 60:02d}"))
        if left <= 0:
            self.answer(self.entry.value, timed_out=True)

    def answer(self, entry, timed_out: bool = False):
        """Grade the entry for the current question (starting the session if Start was not pressed). An unreadable
        entry gets its message and can be retyped, unless the time is up."""
        self.start()
        if self.submit.disabled:  # already graded
            return self.results[-1][1]
        return self._grade(entry, timed_out)

    def _grade(self, entry, timed_out):
        problem, k = self.items[self.index]
        verdict = problem.check_part(k, entry) if problem.parts else problem.check(entry)
        if verdict.grade in ("empty", "invalid") and not timed_out:
            self.verdict.value = verdict_html(verdict)
            return verdict
        self.results.append((problem, verdict, self.elapsed(), timed_out, k))
        if self.store is not None:
            from ...learn.progress import review_drill

            review_drill(self.store, self.current, verdict, self.elapsed(), self.limit)
        self.ticker.playing = False
        self.entry.disabled = self.submit.disabled = True
        shown = type(verdict)(verdict.grade, _("Time is up. ") + verdict.message) if timed_out else verdict
        answer = self.current_part.answer_text
        self.verdict.value = "{}<br><small>{}</small>".format(
            verdict_html(shown), _("Answer: {answer}").format(answer=html.escape(answer)))
        self.next.description = _("See the score") if self.index == len(self.items) - 1 else _("Next question")
        self.next.layout.display = None
        return verdict

    def score(self) -> dict:
        grades = [verdict.grade for _, verdict, *_ in self.results]
        return {grade: grades.count(grade) for grade in ("correct", "close", "wrong", "empty", "invalid")}

    def _finish(self):
        self.ticker.playing = False
        score = self.score()
        if self.store is not None:
            self.store.record_session("timed", list(dict.fromkeys(p.topic for p in self.problems)), score,
                                      sum(seconds for _, _, seconds, *_ in self.results))
        self.header.value = "<b>{}</b>".format(_("Score: {correct} correct, {close} close, {missed} missed, of "
                                                 "{total}").format(
            correct=score["correct"], close=score["close"],
            missed=len(self.results) - score["correct"] - score["close"], total=len(self.results)))
        self.timer.value = self.question.value = self.verdict.value = ""
        for part in (self.entry, self.submit, self.next):
            part.layout.display = "none"
        rows = []
        for problem, verdict, seconds, timed_out, k in self.results:
            took = f"{seconds:.0f} s" + (_(", time up") if timed_out else "")
            name = problem.part_exercises[k].key
            if verdict.grade == "correct":
                rows.append(f"<li>✓ {html.escape(name)} ({took})</li>")
                continue
            part = problem.graded[k]
            worked = ([*part.steps, _("Answer: {answer}").format(answer=part.answer_text)] if problem.parts
                      else problem.solution().splitlines())
            asked = (_("{question} Step: {step}").format(question=problem.question, step=part.question)
                     if problem.parts else problem.question)
            steps = "<br>".join(html.escape(step) for step in worked)
            rows.append(f"<li>✗ {html.escape(asked)} ({took})<br>{verdict_html(verdict)}"
                        f"<div style='margin:4px 0 8px 1em;font-size:0.9em'>{steps}</div></li>")
        self.review.value = "<ul>" + "".join(rows) + "</ul>"

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


def flashcard_deck(topics=None, seed: int = 0, store=None) -> FlashcardDeck:
    return FlashcardDeck(topics, seed, store)


def timed_session(n: int = 5, seed: int = 0, topics=None, level: str = "medium",
                  seconds_per_question=180, store=None) -> TimedSession:
    return TimedSession(n, seed, topics, level, seconds_per_question, store)

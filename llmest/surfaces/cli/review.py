"""``llmest review``: a quick spaced-repetition session in a terminal, or a study plan to an interview date
(``llmest.learn.progress``)."""

from __future__ import annotations

import sys
import time
from datetime import datetime, timezone

from ...core._validate import InputError, check_choice, check_int
from .options import _subparser, _text, _whole
from ...core.report import Report
from ...core.i18n import LANGUAGES, _

DRILL_SECONDS = 180   # a drill's time for its rating, the timed session's default


def add_review_parser(subparsers):
    p = _subparser(subparsers, "review", cmd_review, "review the cards due (spaced repetition), or plan the days "
                                                     "to an interview",
                   "  llmest review --n 10 --topics memory,compute\n"
                   "  llmest review --n 10 --lang zh                 the session in Chinese\n"
                   "  llmest review --db progress.sqlite3 < answers.txt\n"
                   "  llmest review --plan --interview 2027-01-15 --minutes 30\n"
                   "Progress is kept in $LLMEST_PROGRESS or the user's data folder unless --db names a file;\n"
                   "Ctrl-C or the end of the input ends the session with its summary.")
    p.add_argument("--n", type=_whole("n"), default=10, help="cards to review at most, 1-200 (default 10)")
    p.add_argument("--topics", type=_text, default=None, help="comma-separated topics (default all)")
    p.add_argument("--level", type=_text, default="medium", help="level of the drill problems (default medium)")
    p.add_argument("--db", type=_text, default=None, metavar="PATH", help="the progress file")
    p.add_argument("--plan", action="store_true", help="print a study plan instead of reviewing")
    p.add_argument("--interview", type=_text, default=None, help="with --plan: the interview's date, YYYY-MM-DD")
    p.add_argument("--minutes", dest="minutes_per_day", type=_whole("minutes_per_day"), default=30,
                   help="with --plan: minutes a day, 5-720 (default 30)")
    p.add_argument("--today", type=_text, default=None, help="with --plan: the first day (default today, UTC)")
    p.add_argument("--lang", choices=list(LANGUAGES), default=None,
                   help="en (English) or zh (Chinese): the language of the session's prompts, problems and verdicts "
                        "(default: llmest --lang, else the locale)")


def _store(args):
    from ...learn.progress import Store

    store = Store(args.db, param="--db")  # a file not its own is refused (InputError), never touched
    if store.notice:
        print(store.notice, file=sys.stderr)
    return store


def cmd_review(args):
    return _cmd_review(args)  # in the language the command line chose (--lang, else the locale)


def _cmd_review(args):
    try:
        import fsrs  # noqa: F401
        import platformdirs  # noqa: F401
    except ImportError as err:  # the command line's other commands need NumPy only
        raise SystemExit(f"llmest review needs the package {err.name}: pip install 'llmest[workbook]'") from None
    from ...learn import progress
    from ...learn.drills import LEVELS, chosen_topics

    topics = chosen_topics(args.topics)
    if args.plan:
        if args.interview is None:
            raise InputError("interview", "--plan needs the interview's date, e.g. --interview 2027-01-15.")
        progress.plan_inputs(args.interview, args.minutes_per_day, args.today, topics)  # before the file
        return progress.study_plan(_store(args), args.interview, args.minutes_per_day, args.today, topics).report()
    check_int("n", args.n, maximum=200)
    check_choice("level", args.level, LEVELS)
    store = _store(args)
    out = sys.stderr if args.json else sys.stdout  # with --json, stdout holds the JSON alone
    done = []
    try:
        for entry in progress.due(store, topics=topics)[:args.n]:
            result = _review(store, entry, args.level, out)
            if result is None:  # the input ended
                print(file=out)
                break
            done.append(result)
    except KeyboardInterrupt:
        print(file=out)
    right = sum(r["correct"] for r in done)
    left = progress.due(store, topics=topics)
    text = (_("Reviewed {n} card: {right} right.") if len(done) == 1 else
            _("Reviewed {n} cards: {right} right.")).format(n=len(done), right=right) + " " + _left(left)
    return Report(text, data={"reviewed": done, "due": len(left)})


def _left(left) -> str:
    now = datetime.now(timezone.utc)
    waiting = sum(d.due is not None and d.due <= now for d in left)
    new = sum(d.due is None for d in left)
    return _("Due now: {waiting}; later today: {later}; new: {new}.").format(waiting=waiting,
                                                                             later=len(left) - waiting - new, new=new)


def _ask(prompt: str, out):
    """A line from stdin (None at its end)."""
    print(prompt, end="", file=out, flush=True)
    line = sys.stdin.readline()
    if line and not sys.stdin.isatty():
        print(line.strip(), file=out)  # the answer, as a terminal would have echoed it
    return None if line == "" else line.strip()


def _review(store, entry, level: str, out):
    """One card: shown, answered, graded and recorded. None when the input ends first."""
    from ...learn import progress
    from ...learn.drills import generate
    from ...learn.flashcards import cards

    item = entry.item
    print(f"\n[{item.topic}] ", end="", file=out)
    if item.kind == "flashcard":
        card = next(c for c in cards(item.topic) if progress.flashcard_id(c) == item.id)
        print(card.front, file=out)
        if _ask(_("(Enter to see the answer) "), out) is None:
            return None
        print(_("Answer: {answer}").format(answer=card.back), file=out)
        while (known := _ask(_("Did you know it? [y/n] "), out)) not in ("y", "n", "yes", "no"):
            if known is None:
                return None
        known = known.startswith("y")
        scheduled = progress.review_flashcard(store, card, known)
        correct = known
    else:
        problem = generate(item.prompt, entry.reviews, level)  # a new problem at each review of the template
        print(problem.question, file=out)
        started = time.monotonic()
        while True:
            answer = _ask("> ", out)
            if answer is None:
                return None
            verdict = problem.check(answer)
            if verdict.grade not in ("empty", "invalid"):
                break
            print(verdict.shown, file=out)
        seconds = time.monotonic() - started
        print(_("{verdict} Answer: {answer}").format(verdict=verdict.shown, answer=problem.answer_text), file=out)
        scheduled = progress.review_drill(store, problem, verdict, seconds, DRILL_SECONDS)
        correct = verdict.grade == "correct"
    print(_("Next review: {due} UTC").format(due=scheduled.due.strftime("%Y-%m-%d %H:%M")), file=out)
    return {"card": item.id, "topic": item.topic, "correct": correct, "next_due": scheduled.due.isoformat()}

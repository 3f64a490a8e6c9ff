"""The workbook as an nbgrader course: ``python -m llmest.book.course [--out build/course]`` (``make course``).

The chapters in ``solutions/`` carry nbgrader's cell metadata themselves (llmest.book.authoring.mark writes it on each
rebuild): each exercise's question cell is locked, its answer cell is a solution cell, and after it comes a locked,
autograded test cell worth a point, whose visible part checks the form of the answer and whose hidden part
(nbgrader's ``### BEGIN HIDDEN TESTS``) checks its value. :func:`build` seals each hidden part (:func:`seal`): the
value the teacher's machine computes, the tolerance and the unit written into it as literals, decided by
``llmest/learn/sealed.py`` loaded by its path, so that nothing a student's cells change takes part; and it puts a locked
cell after the title that turns on the graded mode (no verdict, no direction, no expected value handed out).
:func:`build` writes ``source/<chapter>/`` and ``nbgrader_config.py``; nbgrader's ``generate_assignment`` then
writes ``release/``,
with the same prompts as ``notebooks/`` (the configuration sets them from llmest.book.authoring). ``--lang zh`` makes
the course from the Chinese edition (``solutions/zh/``), its prompts in Chinese, as the course ``llmest-zh``.
:func:`add_drill_assignment` adds a seeded drill set (``llmest drill --course``) as one more assignment.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import re
import shutil
import sys
from pathlib import Path

import nbformat

from .authoring import BEGIN, END, POINTS, PROMPTS, ROOT, SOLUTIONS, CourseError, grade_id, is_test, mark, nbgrader_meta
from ..learn.grading import FEEDBACK

# The appendix has no exercises: the course releases chapters 1-6. Chapter 6 runs where PyTorch and transformers are
# installed (the measure extra), for the students and for autograding.
CHAPTERS = ("01_parameters", "02_memory", "03_flops_and_time", "04_data_and_tokens", "05_interview_drills",
            "06_measure_it_yourself")


COURSES = {"en": ("llmest", SOLUTIONS), "zh": ("llmest-zh", SOLUTIONS / "zh")}  # course id, chapters' folder
CONFIG = '''# nbgrader's configuration for the llmest course, written by llmest.
c = get_config()
c.CourseDirectory.course_id = "{course_id}"
# The release's prompts are the self-study copy's (llmest.book.authoring).
c.ClearSolutions.code_stub = {{"python": {code_stub!r}}}
c.ClearSolutions.text_stub = {text_stub!r}
c.Execute.timeout = 900
# For a class on JupyterHub: a folder every user can read and write, shared by the teacher and the students.
# c.Exchange.root = "/srv/nbgrader/exchange"
'''


# The hidden part of a test cell as the course seals it: the answer decided by llmest/learn/sealed.py, loaded by its
# path, against what the teacher's machine computed when the course was built (written into the cell as literals).
HIDDEN = "### BEGIN HIDDEN TESTS"
SEALED = """### BEGIN HIDDEN TESTS
# Decided against the value computed when the course was built, by llmest/learn/sealed.py loaded from its file:
# nothing defined or changed above takes part.
import importlib.util as _seal_util
_seal_spec = _seal_util.spec_from_file_location("_llmest_seal", {path!r})
_seal = _seal_util.module_from_spec(_seal_spec)
_seal_spec.loader.exec_module(_seal)
_seal.decide(answer, {expected!r}, {rel_tol!r}, {unit!r}, {minimum!r})
### END HIDDEN TESTS"""
_EXERCISE = re.compile(r'le\.exercise\("([\d.]+)"\)')


def sealed_test(visible: str, exercise) -> str:
    """A test cell's source: its visible part, then the hidden part sealed with ``exercise``'s value."""
    from ..learn import sealed

    return visible.rstrip("\n") + "\n" + SEALED.format(path=str(Path(sealed.__file__).resolve()),
                                                      expected=float(exercise.expected()),
                                                      rel_tol=float(exercise.rel_tol), unit=exercise.unit,
                                                      minimum=bool(exercise.minimum))


# The first code cell of every assignment, locked: the course's graded mode (llmest.graded_mode).
GRADED_MODE = {"en": "import llmest as le\n\nle.graded_mode({args})  # checked here, graded when you submit",
               "zh": "import llmest as le\n\nle.graded_mode({args})  # 这里只检查答案，提交后才评分"}


def graded_mode_cell(language: str = "en", feedback: str = "none"):
    args = "" if feedback == "none" else f"feedback={feedback!r}"
    cell = nbformat.v4.new_code_cell(GRADED_MODE[language].format(args=args))
    cell.id, cell.metadata["nbgrader"] = "graded-mode", nbgrader_meta("graded-mode", locked=True)
    return cell


def seal(nb, language: str = "en", feedback: str = "none"):
    """Seal a chapter for grading, in place: the graded mode turned on in a locked cell after the title, and each
    test cell's hidden part deciding with literals (``sealed_test``)."""
    from ..learn.exercises import get

    nb.cells.insert(1, graded_mode_cell(language, feedback))
    for cell in nb.cells:
        if is_test(cell):
            visible = cell.source.split(HIDDEN)[0]
            cell.source = sealed_test(visible, get(_EXERCISE.search(visible).group(1)))
    return nb


def config(language: str = "en") -> str:
    """nbgrader_config.py for the course in ``language`` (en or zh)."""
    code, text = PROMPTS[language]
    return CONFIG.format(course_id=COURSES[language][0], code_stub="\n".join(code), text_stub="\n".join(text))


def source_version(solution_nb):
    """A marked chapter as an nbgrader source notebook: no outputs, no widget state."""
    nb = copy.deepcopy(solution_nb)
    if mark(copy.deepcopy(nb)) != nb:
        raise CourseError("the chapter's nbgrader metadata is stale: rebuild it (make notebooks)")
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb


def write_source(out: Path, assignment: str, nb) -> Path:
    target = out / "source" / assignment / f"{assignment}.ipynb"
    if target.parent.exists():
        shutil.rmtree(target.parent)
    target.parent.mkdir(parents=True)
    nbformat.write(nb, target)
    return target


def build(out: Path, language: str = "en", feedback: str = "none") -> list[Path]:
    """Write ``out/source/<chapter>/`` and ``out/nbgrader_config.py``, from the chapters in ``language`` (en or zh),
    with the graded mode's ``feedback`` (llmest.learn.grading.FEEDBACK); return the source notebooks."""
    chapters = COURSES[language][1]
    written = [write_source(out, name, seal(source_version(nbformat.read(chapters / f"{name}.ipynb", as_version=4)),
                                            language, feedback)) for name in CHAPTERS]
    (out / "nbgrader_config.py").write_text(config(language), encoding="utf-8")
    return written


def drill_assignment(seed: int, n: int = 10, topics=None, level: str = "mixed"):
    """A seeded drill set (the worksheet ``llmest drill`` writes) as an nbgrader source notebook: each problem's
    question locked, its worked steps and answer a solution, and a test cell from the same template."""
    from ..learn.drills import drill_set
    from ..learn.worksheets import INSTRUCTIONS, title

    problems = drill_set(seed, n, topics, level)

    def locked_markdown(text, gid):
        cell = nbformat.v4.new_markdown_cell(text)
        cell.id, cell.metadata["nbgrader"] = gid, nbgrader_meta(gid, locked=True)
        return cell

    # The setup imports the form check only: no sheet of problems (and answers) in the student's kernel.
    setup = graded_mode_cell()
    setup.source += "\nfrom llmest.learn.grading import assert_readable  # checks an answer's form"
    cells = [locked_markdown(f"# {title(problems, None, key=False)}\n\n{INSTRUCTIONS} Each answer cell ends by "
                             "assigning `answer`: a number, or text with its unit.", "instructions"), setup]
    for i, problem in enumerate(problems, 1):
        cells.append(locked_markdown(f"## {i}. {problem.topic} · {problem.level}\n\n{problem.question}",
                                     f"question-{i}"))
        # A chained problem has an answer cell and a test per step ("answer-3b", "test-3b"), graded apart.
        for k, part in enumerate(problem.graded):
            suffix = "abc"[k] if problem.parts else ""
            steps = [f"# {step}" for step in part.steps]
            if problem.parts:
                steps.insert(0, f"# ({suffix}) {part.question}")
            answer = nbformat.v4.new_code_cell("\n".join([BEGIN, *steps, f"answer = {part.answer_text!r}", END]))
            gid = f"answer-{i}{suffix}"
            answer.id, answer.metadata["nbgrader"] = gid, nbgrader_meta(gid, solution=True)
            exercise = problem.part_exercises[k] if problem.parts else problem.exercise
            test = nbformat.v4.new_code_cell(sealed_test(
                f"assert_readable(answer, {exercise.unit!r})  # an answer, readable in its unit", exercise))
            test.id = f"test-{i}{suffix}"
            test.metadata["nbgrader"] = nbgrader_meta(test.id, grade=True, locked=True, points=POINTS)
            cells += [answer, test]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def default_drill_name(seed: int) -> str:
    """A drill set's assignment name that does not give its seed away (the seed regenerates the answers): drills-
    and 8 hex digits of its SHA-256."""
    return f"drills-{hashlib.sha256(str(seed).encode()).hexdigest()[:8]}"


def add_drill_assignment(course_dir, seed: int, n: int = 10, topics=None, level: str = "mixed",
                         name: str | None = None) -> Path:
    """Write a drill set into ``course_dir/source/<name>/`` (and nbgrader_config.py if the course has none)."""
    name = name or default_drill_name(seed)
    out = Path(course_dir)
    target = write_source(out, name, drill_assignment(seed, n, topics, level))
    if not (out / "nbgrader_config.py").exists():
        (out / "nbgrader_config.py").write_text(config(), encoding="utf-8")
    return target


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "course", help="the course directory")
    parser.add_argument("--lang", choices=list(COURSES), default="en",
                        help="en: the English chapters; zh: the Chinese edition, as the course llmest-zh")
    parser.add_argument("--feedback", choices=FEEDBACK, default="none",
                        help="what an exercise's check tells a student before grading: none (how the answer was read) "
                             "or right-or-wrong (never a direction)")
    args = parser.parse_args(argv)
    try:
        paths = build(args.out, args.lang, args.feedback)
    except CourseError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for path in paths:
        print(f"wrote {path}")
    print(f"release with: cd {args.out} && nbgrader generate_assignment CHAPTER (make course releases all)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The workbook as an nbgrader course: ``python -m llmest.course [--out build/course]`` (``make course``).

The chapters in ``solutions/`` carry nbgrader's cell metadata themselves (llmest.authoring.mark writes it on each
rebuild): each exercise's question cell is locked, its answer cell is a solution cell, and after it comes a locked,
autograded test cell worth a point, whose visible part checks the form of the answer and whose hidden part
(nbgrader's ``### BEGIN HIDDEN TESTS``) checks its value: ``exercise(key).assert_form(answer)`` and
``assert_ok(answer)``, which raise with the message the exercise box shows. :func:`build` writes
``source/<chapter>/`` and ``nbgrader_config.py``; nbgrader's own ``generate_assignment`` then writes ``release/``,
with the same prompts as ``notebooks/`` (the configuration sets them from llmest.authoring). ``--lang zh`` makes
the course from the Chinese edition (``solutions/zh/``), its prompts in Chinese, as the course ``llmest-zh``.
:func:`add_drill_assignment` adds a seeded drill set (``llmest drill --course``) as one more assignment.
"""

from __future__ import annotations

import argparse
import copy
import shutil
import sys
from pathlib import Path

import nbformat

from .authoring import (BEGIN, END, POINTS, PROMPTS, ROOT, SOLUTIONS, CourseError, grade_id, mark, nbgrader_meta,
                        test_cell)

# The appendix has no exercises: the course releases chapters 1-6. Chapter 6 runs where PyTorch and transformers are
# installed (the measure extra), for the students and for autograding.
CHAPTERS = ("01_parameters", "02_memory", "03_flops_and_time", "04_data_and_tokens", "05_interview_drills",
            "06_measure_it_yourself")


COURSES = {"en": ("llmest", SOLUTIONS), "zh": ("llmest-zh", SOLUTIONS / "zh")}  # course id, chapters' folder
CONFIG = '''# nbgrader's configuration for the llmest course, written by llmest.
c = get_config()
c.CourseDirectory.course_id = "{course_id}"
# The release's prompts are the self-study copy's (llmest.authoring).
c.ClearSolutions.code_stub = {{"python": {code_stub!r}}}
c.ClearSolutions.text_stub = {text_stub!r}
c.Execute.timeout = 900
# For a class on JupyterHub: a folder every user can read and write, shared by the teacher and the students.
# c.Exchange.root = "/srv/nbgrader/exchange"
'''


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


def build(out: Path, language: str = "en") -> list[Path]:
    """Write ``out/source/<chapter>/`` and ``out/nbgrader_config.py``, from the chapters in ``language`` (en or zh);
    return the source notebooks."""
    chapters = COURSES[language][1]
    written = [write_source(out, name, source_version(nbformat.read(chapters / f"{name}.ipynb", as_version=4)))
               for name in CHAPTERS]
    (out / "nbgrader_config.py").write_text(config(language), encoding="utf-8")
    return written


def drill_assignment(seed: int, n: int = 10, topics=None, level: str = "mixed"):
    """A seeded drill set (the worksheet ``llmest drill`` writes) as an nbgrader source notebook: each problem's
    question locked, its worked steps and answer a solution, and a test cell from the same template."""
    from .drills import drill_set
    from .worksheets import INSTRUCTIONS, title

    problems = drill_set(seed, n, topics, level)
    topic_list = ",".join(sorted({p.topic for p in problems}))

    def locked_markdown(text, gid):
        cell = nbformat.v4.new_markdown_cell(text)
        cell.id, cell.metadata["nbgrader"] = gid, nbgrader_meta(gid, locked=True)
        return cell

    setup = nbformat.v4.new_code_cell("from llmest.drills import drill_set\n\n"
                                      f"sheet = drill_set({seed}, {n}, {topic_list!r}, {level!r})  # its problems")
    setup.id, setup.metadata["nbgrader"] = "setup", nbgrader_meta("setup", locked=True)
    cells = [locked_markdown(f"# {title(problems, seed, key=False)}\n\n{INSTRUCTIONS} Each answer cell ends by "
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
            check = f"sheet[{i - 1}].part_exercises[{k}]" if problem.parts else f"sheet[{i - 1}].exercise"
            cells += [answer, test_cell(check, f"test-{i}{suffix}")]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def add_drill_assignment(course_dir, seed: int, n: int = 10, topics=None, level: str = "mixed",
                         name: str | None = None) -> Path:
    """Write a drill set into ``course_dir/source/<name>/`` (and nbgrader_config.py if the course has none)."""
    name = name or f"drills-seed-{seed}"
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
    args = parser.parse_args(argv)
    try:
        paths = build(args.out, args.lang)
    except CourseError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for path in paths:
        print(f"wrote {path}")
    print(f"release with: cd {args.out} && nbgrader generate_assignment CHAPTER (make course releases all)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Shared test helpers."""

import importlib
import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

IN_CI = bool(os.environ.get("CI"))
# Progress written by the tests (the CLI's review, notebook kernels, which inherit the environment) goes to a
# folder of its own, never to the reader's own progress file.
os.environ["LLMEST_PROGRESS"] = str(Path(tempfile.mkdtemp(prefix="llmest-progress-")) / "progress.sqlite3")
# Nothing a machine's user has configured reaches the tests: Jupyter's and IPython's settings and kernels, and
# Matplotlib's style, come from folders of the tests' own (kernels and servers started by the tests inherit these).
_OWN = Path(tempfile.mkdtemp(prefix="llmest-test-home-"))
for variable in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "IPYTHONDIR", "MPLCONFIGDIR"):
    os.environ[variable] = str(_OWN / variable.lower())
os.environ["JUPYTER_PREFER_ENV_PATH"] = "1"   # this environment's kernel before any other on the machine
os.environ.pop("JUPYTER_PATH", None)
os.environ.pop("MPLBACKEND", None)
# The command line answers in the locale's language when --lang is not given: the tests run in an English locale
# whatever the machine's, and set a locale themselves where they test it.
for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
    os.environ.pop(variable, None)
os.environ["LANG"] = "C.UTF-8"

# One Hypothesis profile everywhere: the same examples on every machine and every run, no example database.
settings.register_profile("llmest", derandomize=True, database=None, deadline=None, print_blob=True)
settings.load_profile("llmest")


def require(module: str):
    """Import an optional test dependency. Locally a missing one skips the test; in CI it fails, so that
    nothing the suite promises is silently skipped there."""
    if IN_CI:
        return importlib.import_module(module)
    return pytest.importorskip(module)


def chinese_text(make) -> str:
    """What ``make()`` shows under speaking("zh"), checked to read in Chinese: no English prose, some Chinese."""
    from llmest.book.edition import english_prose
    from llmest.core.i18n import speaking

    with speaking("zh"):
        text = str(make())
    assert not english_prose(text), english_prose(text)
    assert any("\u4e00" <= ch <= "\u9fff" for ch in text)
    return text


def assert_keeps_the_figures(english: str, chinese: str) -> None:
    """A Chinese text keeps every figure of the English, and no English word but "token(s)"."""
    words = re.findall(r"(?<![\w.\-/:`'])[a-z]{3,}(?![\w.\-/:`'(])", chinese)
    assert set(words) <= {"token", "tokens"}, words
    figures = re.compile(r"\d+(?:[,.]\d+)*")
    assert set(figures.findall(english)) <= set(figures.findall(chinese))

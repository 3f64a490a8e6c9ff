"""Shared test helpers."""

import importlib
import os
import tempfile
from pathlib import Path

import pytest

IN_CI = bool(os.environ.get("CI"))
# Progress written by the tests (the CLI's review, notebook kernels, which inherit the environment) goes to a
# folder of its own, never to the reader's own progress file.
os.environ["LLMEST_PROGRESS"] = str(Path(tempfile.mkdtemp(prefix="llmest-progress-")) / "progress.sqlite3")


def require(module: str):
    """Import an optional test dependency. Locally a missing one skips the test; in CI it fails, so that
    nothing the suite promises is silently skipped there."""
    if IN_CI:
        return importlib.import_module(module)
    return pytest.importorskip(module)

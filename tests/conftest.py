"""Shared test helpers."""

import importlib
import os

import pytest

IN_CI = bool(os.environ.get("CI"))


def require(module: str):
    """Import an optional test dependency. Locally a missing one skips the test; in CI it fails, so that
    nothing the suite promises is silently skipped there."""
    if IN_CI:
        return importlib.import_module(module)
    return pytest.importorskip(module)

"""The llmest command: ``main`` parses, each command module calls a plan and returns its result's report."""

from .main import main  # noqa: F401  (the console script's entry point)

"""llmest: estimate what a large language model costs to train and to serve.

The package is in layers, each importing only those below it (``tests/test_layout.py`` lists the few imports that
still point up):

    core/       units, checks and InputError, the language shown, limits
    formulas/   model and parameter count, memory, KV cache, compute, communication, ZeRO, data, measuring;
                readers/ reads config.json files
    catalog/    GPUs and prices, published runs, corpora, the presets' config.json files
    display/    how a result shows itself (text, HTML, JSON, in the current language), and plots
    plans/      one function per question, each returning a result that shows itself; published layouts;
                findings/ the small questions each chapter asks (display/findings/ shows them)
    learn/      exercises, drills, flashcards, worksheets, grading, progress
    book/       the material's figures and the tools that build the book
    surfaces/   the command line, the notebook calculators, the calculator app

The numeric API below imports only the standard library and NumPy. The modules a reader types by their short name
(``llmest.hardware``, ``from llmest import plans``) load from their layer on first use, as the material's
figures, widgets, plots, tables and exercises do.
"""

from .core import units
from .core._validate import InputError
from .core.i18n import set_language
from .core.units import format_bytes, format_count, format_int, parse_bytes, parse_count
from .formulas import model
from .formulas.model import PRESETS, ModelConfig, ParamCount, count_params, preset

__all__ = [
    "InputError", "ModelConfig", "ParamCount", "PRESETS", "count_params", "preset", "material", "model", "units",
    "format_bytes", "format_count", "format_int", "parse_bytes", "parse_count", "exercise", "set_language",
]

__version__ = "0.1.0"

# The short names a reader types, and the module each names in its layer.
SHORT_NAMES = {
    **{name: f"core.{name}" for name in ("errors", "i18n", "limits")},
    **{name: f"formulas.{name}" for name in ("params", "memory", "kv_cache", "compute", "comm", "zero", "data",
                                              "measure")},
    "config_file": "formulas.readers.config_file",
    **{name: f"catalog.{name}" for name in ("hardware", "runs")},
    "texts": "catalog.corpora", "plots": "display.plots",
    "published_layouts": "plans.published_layouts",
    **{name: f"learn.{name}" for name in ("exercises", "drills", "progress", "flashcards", "worksheets", "grading",
                                          "verdict", "sealed", "course_mode")},
    **{name: f"book.{name}" for name in ("material", "authoring", "edition", "export", "course")},
    "cli": "surfaces.cli.main", "widgets": "surfaces.widgets",
    **{name: name for name in ("core", "formulas", "catalog", "display", "plans", "learn", "book", "surfaces")},
}


def graded_mode(on: bool = True, feedback: str = "none") -> None:
    """The course's graded mode: exercises read answers but give no verdict ("none") or only right or wrong
    ("right-or-wrong"), never a direction, and hand out no expected value (a graded assignment's first cell turns it
    on; the grade itself is decided on the teacher's machine)."""
    from .learn.grading import graded_mode as turn

    turn(on, feedback)


def exercise(key: str):
    """The exercise numbered ``key`` (e.g. "1.2"), with its check, hints and, where ipywidgets is installed, the
    exercise box it shows in a notebook."""
    import importlib.util

    from .learn.exercises import get

    if importlib.util.find_spec("ipywidgets"):
        from .surfaces import widgets  # noqa: F401  (registers the exercise box)
    return get(key)


def __getattr__(name):
    # A module named by its short name loads from its layer when first touched, so `import llmest` stays fast.
    if name in SHORT_NAMES:
        import importlib

        module = importlib.import_module(f".{SHORT_NAMES[name]}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module 'llmest' has no attribute {name!r}")

"""llmest: estimate what a large language model costs to train and to serve.

The numeric API below imports only the standard library: no NumPy, SymPy, matplotlib, ipywidgets or torch.
The material's figures (``llmest.material``, which recompute through the plans and NumPy), widgets
(``llmest.widgets``), plots (``llmest.plots``), tables (``llmest.tables``) and exercises (``llmest.exercises``) load
on first use.
"""

from . import model, units
from ._validate import InputError
from .i18n import set_language
from .model import PRESETS, ModelConfig, ParamCount, count_params, preset
from .units import format_bytes, format_count, format_int, parse_bytes, parse_count

__all__ = [
    "InputError", "ModelConfig", "ParamCount", "PRESETS", "count_params", "preset", "material", "model", "units",
    "format_bytes", "format_count", "format_int", "parse_bytes", "parse_count", "exercise", "set_language",
]

__version__ = "0.1.0"


def graded_mode(on: bool = True, feedback: str = "none") -> None:
    """The course's graded mode: exercises read answers but give no verdict ("none") or only right or wrong
    ("right-or-wrong"), never a direction, and hand out no expected value (a graded assignment's first cell turns it
    on; the grade itself is decided on the teacher's machine)."""
    from .grading import graded_mode as turn

    turn(on, feedback)


def exercise(key: str):
    """The exercise numbered ``key`` (e.g. "1.2"), with its check, hints and, where ipywidgets is installed, the
    exercise box it shows in a notebook."""
    import importlib.util

    from .exercises import get

    if importlib.util.find_spec("ipywidgets"):
        from . import widgets  # noqa: F401  (registers the exercise box)
    return get(key)


def __getattr__(name):
    # Heavier modules load when first touched, so `import llmest` stays fast.
    if name in ("material", "widgets", "plots", "tables", "exercises"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'llmest' has no attribute {name!r}")

"""Calculators and the exercise widget. They only gather input and call the library's plans; a bad value gets its
message beside the field, never a traceback.

render (HTML bars, the memory bar), charts (the SVG charts), form (fields with their errors), one module per
calculator family (params, memory, compute, serving, capacity, data, layouts), practice (the exercise box,
flashcards, timed sessions) and progress_view (the cards due and accuracy by topic, from a progress store)."""

from .capacity import CapacityPlanner, capacity_planner
from .charts import svg_chart, svg_scatter
from .compute import RooflineExplorer, TrainingPlanner, roofline_explorer, training_planner
from .data import DataPlanner, ScalingExplorer, data_planner, scaling_explorer
from .layouts import LayoutExplorer, layout_explorer
from .memory import MemoryPlanner, memory_planner
from .params import ParamCalculator, param_calculator
from .practice import (GRADE_COLORS, FlashcardDeck, TimedSession, exercise_widget, flashcard_deck, timed_session,
                       verdict_html)
from .progress_view import ProgressView, progress_view
from .render import ERROR_STYLE, bar_chart_html, breakdown_chart_html, memory_bar_html
from .serving import ServingPlanner, serving_planner

__all__ = ["CapacityPlanner", "capacity_planner", "DataPlanner", "ERROR_STYLE", "FlashcardDeck", "GRADE_COLORS",
           "LayoutExplorer", "MemoryPlanner", "ParamCalculator", "ProgressView", "RooflineExplorer", "ScalingExplorer",
           "ServingPlanner", "TimedSession",
           "TrainingPlanner", "bar_chart_html", "breakdown_chart_html", "data_planner", "exercise_widget",
           "flashcard_deck", "layout_explorer", "memory_bar_html", "memory_planner", "param_calculator",
           "progress_view", "roofline_explorer", "scaling_explorer", "serving_planner", "svg_chart", "svg_scatter",
           "timed_session", "training_planner", "verdict_html"]

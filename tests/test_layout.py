"""The package's layout: no import cycle inside llmest, and no module over about 400 lines.

The import graph counts every import statement, those inside functions and methods too: a lazy import only
defers a cycle to the first call, so ``widgets -> drills -> exercises -> widgets`` is a cycle even when each
step imports inside a function. Dynamic imports (``importlib.import_module``) are not statements and are not
counted; llmest uses one, in ``llmest.__getattr__``, to load its heavy subpackages on first touch.
"""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "llmest"
MAX_LINES = 400


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _imports(name: str, path: Path, modules) -> set[str]:
    """The llmest modules that ``name`` imports. ``from . import x`` names the submodule x when there is one,
    and otherwise the package itself (x is then a name defined in its __init__)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                base = ".".join(base + ([node.module] if node.module else []))
            else:
                base = node.module
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in modules else base)
    return {target for target in found if target in modules and target != name}


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def cycles(graph) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_relative_and_function_level_imports():
    graph = import_graph()
    assert "llmest.formulas.model" in graph["llmest.formulas.memory"]            # from . import model as m
    assert "llmest.book.material.ch2_memory" in graph["llmest.book.material"]
    assert "llmest" in graph["llmest.surfaces.cli.main"]                     # from . import __version__, inside build_parser
    assert "llmest.learn.flashcards" in graph["llmest.surfaces.widgets.practice"]   # imported inside a method


def test_cycles_finds_a_cycle_through_three_modules():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_inside_llmest():
    assert cycles(import_graph()) == []


# The layers, bottom to top: a module imports from its own layer and the layers below it.
LAYERS = ("core", "formulas", "catalog", "display", "plans", "learn", "book", "surfaces")
# Imports that still point up, each with why; a new one fails, and one that goes must leave this list.
KNOWN_UPWARD = {
    ("llmest.catalog.runs", "llmest.display.table"): "the published runs shown as a table",
    ("llmest.display.plots.compute", "llmest.plans"): "plots draw plans' results over a range of inputs",
    ("llmest.display.plots.layouts", "llmest.plans"): "the same, for the layout search",
    ("llmest.display.plots.layouts", "llmest.plans.published_layouts"): "the published runs against the search",
    ("llmest.display.plots.memory", "llmest.plans"): "the memory plans over a range of settings",
    ("llmest.learn.flashcards", "llmest.book.material"): "flashcards quote the material's figures",
}


def _layer(module: str):
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else None


def test_the_top_of_the_package_holds_the_layers_only():
    top = sorted(p.name for p in PACKAGE.iterdir() if p.name != "__pycache__")
    assert top == sorted(["__init__.py", "__main__.py", "locale", *LAYERS])


def test_each_layer_imports_only_the_layers_below_it():
    upward = {(a, t) for a, targets in import_graph().items() for t in targets
              if _layer(a) is not None and _layer(t) is not None and _layer(t) > _layer(a)}
    assert upward - set(KNOWN_UPWARD) == set()
    assert set(KNOWN_UPWARD) - upward == set(), "an upward import is gone: remove it from KNOWN_UPWARD"


def test_no_module_is_over_400_lines():
    lengths = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in _modules().items()}
    assert {name: n for name, n in lengths.items() if n > MAX_LINES} == {}


# ----------------------------------------------------------------------------------------------------------------
# No composition outside the plans
# ----------------------------------------------------------------------------------------------------------------

# The formulas and decisions that the plans chain into an answer (FLOPs -> GPU-hours -> days -> cost, the reverse
# budget, the least-GPU search, serving speed and price). Surfaces and content call the plans instead.
COMPOSED = {"training_days", "training_seconds", "gpu_seconds", "gpu_hours", "cost", "compute_budget",
            "affordable_params", "affordable_tokens", "implied_mfu", "gpus_for_deadline", "cost_per_million_tokens",
            "decode_step_seconds", "min_gpus", "usable_bytes"}
SURFACES = ["surfaces/widgets/*.py", "surfaces/cli/*.py", "core/limits.py", "learn/exercises/*.py",
            "learn/drills/*.py", "learn/flashcards.py", "book/material/ch*.py"]
# (file, the function or figure the call is in, formula): why it quotes one formula on purpose.
QUOTED_ON_PURPOSE = {
    ("learn/drills/memory.py", "_gpus_for_states", "usable_bytes"):
        "a worked step shows the usable memory that the answer (state_gpus) divides by",
    ("learn/drills/memory.py", "_gpus_for_states_chained", "usable_bytes"):
        "the same, in the hard drill's last step",
    ("learn/drills/serving_2025.py", "_batch_at_tpot_roofline", "usable_bytes"):
        "a worked step takes the KV cache's room from the GPU's usable memory, as the serving plan's max_batch does",
    ("learn/exercises/registry.py", "<module>", "usable_bytes"):
        "the hints say the usable memory of a GPU that the answers (zero_gpus, plan_memory, state_gpus) divide by",
    ("learn/drills/serving.py", "_decode_speed", "decode_step_seconds"):
        "the drill's model is a bare parameter count at a given byte width, not a config decode_estimate takes",
    ("learn/drills/serving.py", "_serving_cost", "cost_per_million_tokens"):
        "the drill gives the tokens per second itself: the one formula is the question",
    ("book/material/ch3_compute.py", "000-5-gpt3-total", "cost"):
        "Patterson et al.'s published V100-hours priced at the material's $3: one formula on a published figure",
}


MODULE_NAMES = {name.rpartition(".")[2] for name in _modules()} | {"plans"}


def _module_aliases(tree) -> set[str]:
    """The names a file binds to llmest modules (``from ..formulas import compute as c``, ``from .. import plans``)
    and to the composed formulas themselves (``from ..plans import min_gpus``)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            names |= {alias.asname or alias.name for alias in node.names
                      if alias.name in MODULE_NAMES or alias.name in COMPOSED}
    return names


def _figure_key(call) -> str | None:
    if isinstance(call.func, ast.Name) and call.func.id == "Figure" and call.args \
            and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
        return call.args[0].value
    return None


def composed_calls(source: str, name: str) -> list[tuple[str, str, str]]:
    """(name, enclosing function or figure, formula) for each call of a COMPOSED formula through a module."""
    tree = ast.parse(source, name)
    modules, found, where, name_of_file = _module_aliases(tree), [], [], name

    def visit(node):
        context = None
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            context = node.name
        elif isinstance(node, ast.Call):
            context = _figure_key(node)
            func = node.func
            name = None
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in modules:
                name = func.attr
            elif isinstance(func, ast.Name) and func.id in modules:
                name = func.id
            if name in COMPOSED:
                found.append((name_of_file, where[-1] if where else "<module>", name))
        if context:
            where.append(context)
        for child in ast.iter_child_nodes(node):
            visit(child)
        if context:
            where.pop()

    visit(tree)
    return found


def test_the_composition_check_sees_a_chain_and_where_it_is():
    source = ("from ..formulas import compute as cp\nfrom ..plans import min_gpus\n\ndef f(flops, est):\n"
              "    return cp.cost(cp.gpu_hours(flops, 1e15, 0.4), 2) + est.cost_at(2)\n\n"
              "FIGURES = [Figure('k', lambda: min_gpus(plan, 'A100 80GB'))]\n")
    assert sorted(composed_calls(source, "x.py")) == [("x.py", "f", "cost"), ("x.py", "f", "gpu_hours"),
                                                      ("x.py", "k", "min_gpus")]


def test_every_surface_pattern_names_a_file():
    assert [pattern for pattern in SURFACES if not list(PACKAGE.glob(pattern))] == []


def test_the_limits_import_nothing_but_the_input_checks():
    # and the catalogs' lookup, which the input checks use too: their messages read in the reader's language
    assert import_graph()["llmest.core.limits"] == {"llmest.core._validate", "llmest.core.i18n"}


def test_surfaces_and_content_call_plans_not_the_formulas_plans_chain():
    calls = [call for pattern in SURFACES for path in sorted(PACKAGE.glob(pattern))
             for call in composed_calls(path.read_text(encoding="utf-8"), path.relative_to(PACKAGE).as_posix())]
    assert [call for call in calls if call not in QUOTED_ON_PURPOSE] == []
    assert set(QUOTED_ON_PURPOSE) <= set(calls), "an exception no longer needed: remove it"


MAX_LINE = 120


def test_no_line_in_llmest_is_over_120_characters():
    long = [f"{path.relative_to(PACKAGE)}:{i}: {len(line)}" for path in _modules().values()
            for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if len(line) > MAX_LINE]
    assert long == [], "\n".join(long)

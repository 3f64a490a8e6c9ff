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
    assert "llmest.model" in graph["llmest.memory"]            # from . import model as m
    assert "llmest.material.ch2_memory" in graph["llmest.material"]
    assert "llmest" in graph["llmest.cli"]                     # from . import __version__, inside build_parser
    assert "llmest.flashcards" in graph["llmest.widgets.practice"]   # imported inside a method


def test_cycles_finds_a_cycle_through_three_modules():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_inside_llmest():
    assert cycles(import_graph()) == []


def test_no_module_is_over_400_lines():
    lengths = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in _modules().items()}
    assert {name: n for name, n in lengths.items() if n > MAX_LINES} == {}

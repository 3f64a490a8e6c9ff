"""`import llmest` stays light: the numeric API pulls in no SymPy, matplotlib, ipywidgets or torch."""

import subprocess
import sys


def test_import_llmest_loads_no_heavy_modules():
    code = ("import sys, llmest; llmest.count_params(llmest.preset('llama-2-7b')); llmest.material.table(); "
            "print(sorted(m for m in ('sympy', 'matplotlib', 'ipywidgets', 'torch', 'transformers') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_import_llmest_loads_only_the_standard_library_and_numpy():
    """`import llmest` itself loads llmest's own modules, the standard library and at most NumPy; the material's
    figures (which recompute through the plans) load when first touched, and are the same object then."""
    code = ("import sys; before = set(sys.modules); import llmest; "
            "loaded = {m.split('.')[0] for m in set(sys.modules) - before}; "
            "print(sorted(loaded - set(sys.stdlib_module_names) - {'llmest', 'numpy'})); "
            "print('llmest.material' in sys.modules); import llmest.material as m; print(llmest.material is m)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:3] == ["[]", "False", "True"]

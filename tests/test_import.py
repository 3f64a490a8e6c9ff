"""`import llmest` stays light: the numeric API pulls in no SymPy, matplotlib, ipywidgets or torch."""

import subprocess
import sys


def test_import_llmest_loads_no_heavy_modules():
    code = ("import sys, llmest; llmest.count_params(llmest.preset('llama-2-7b')); llmest.material.table(); "
            "print(sorted(m for m in ('sympy', 'matplotlib', 'ipywidgets', 'torch', 'transformers') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"

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
            "print('llmest.book.material' in sys.modules); import llmest.book.material as m; "
            "print(llmest.material is m)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:3] == ["[]", "False", "True"]


ORDER = """
import json, sys, llmest
from llmest import i18n
if sys.argv[1] == "language first":
    llmest.set_language("zh")
    material = llmest.material
else:
    material = llmest.material
    llmest.set_language("zh")
shown = {f.key: [str(material.boxes([f.key])), material.boxes([f.key])._repr_html_()] for f in material.figures()}
print(json.dumps([shown, str(material.table()), material.table()._repr_html_()], ensure_ascii=False))
"""


def test_the_material_reads_the_same_whether_the_language_is_set_before_or_after_it_loads():
    """The material loads on first use, so a Chinese chapter may load it after set_language('zh'); what it made at
    import (recompute expressions, the values in its labels) must not depend on the language spoken then."""
    first, after = (subprocess.run([sys.executable, "-c", ORDER, order], capture_output=True, text=True,
                                   check=True).stdout for order in ("language first", "material first"))
    assert "亿" in first and first == after

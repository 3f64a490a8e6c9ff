"""The workbook installed anywhere: from its wheel outside the repository, on Colab, on Binder.

The wheel test builds the wheel offline (no build isolation, no index), installs it into a fresh virtual environment
and runs the command, ``llmest.formulas.measure`` and a chapter from a folder outside the repository. The new environment has
no pip and downloads nothing: a ``.pth`` line puts this environment's site-packages after its own, so the wheel's
llmest comes first and the dependencies (NumPy, torch, Jupyter) are the ones already installed. Only a plain path
line is added, so this environment's own editable install of llmest (a ``.pth`` hook in that folder) stays off.
"""

import json
import os
import re
import shutil
import site
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from conftest import require

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: pip's own copy of the same parser
    from pip._vendor import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
REPOSITORY = PYPROJECT["project"]["urls"]["Repository"]
OWNER_REPO = re.fullmatch(r"https://github\.com/([\w.-]+/[\w.-]+)", REPOSITORY).group(1)
# Chapter 6: the one that reads the package's config.json files and measures with PyTorch.
CHAPTER = "06_measure_it_yourself"


def _run(args, **kwargs):
    result = subprocess.run(args, capture_output=True, text=True, timeout=600, **kwargs)
    assert result.returncode == 0, f"{args}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the fresh environment's bin folder, its environment variables, a working folder outside the repository)."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "source"  # the files the wheel is built from, so that the build leaves nothing in the repository
    shutil.copytree(ROOT / "llmest", source / "llmest", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source)
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
          "--wheel-dir", str(tmp / "dist"), str(source)])
    wheel = next((tmp / "dist").glob("llmest-*.whl"))

    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", "--no-index",
          str(wheel)])
    own = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).strip())
    (own / "zz_test_dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    # The chapter's kernel is this environment's own, whatever kernels the machine holds elsewhere.
    _run([str(python), "-m", "ipykernel", "install", "--sys-prefix", "--name", "python3"])

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "JUPYTER_PATH", "VIRTUAL_ENV")}
    env["JUPYTER_PREFER_ENV_PATH"] = "1"
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    outside = tmp / "outside"
    outside.mkdir()
    return venv / "bin", env, outside


def test_the_wheel_holds_what_the_chapters_read(installed):
    bin_dir, env, outside = installed
    where = _run([str(bin_dir / "python"), "-c", "import llmest, llmest.formulas.readers.config_file as f, "
                  "importlib.resources as r; print(llmest.__file__); print(len(list(f.CONFIGS.glob('*.json'))));"
                  "print(r.files('llmest').joinpath('surfaces', 'app', 'llmest-calculators.ipynb').is_file())"],
                 cwd=outside, env=env).split()
    assert Path(where[0]).is_relative_to(bin_dir.parent), "llmest came from somewhere other than the wheel"
    assert int(where[1]) == len(list((ROOT / "llmest" / "catalog" / "configs").glob("*.json"))) > 0
    assert where[2] == "True"


def test_the_command_runs_from_the_wheel(installed):
    bin_dir, env, outside = installed
    out = json.loads(_run([str(bin_dir / "llmest"), "params", "llama-2-7b", "--json"], cwd=outside, env=env))
    assert out["total"] == 6_738_415_616  # Llama-2-7B's published parameter count (Hugging Face model card)
    _run([str(bin_dir / "python"), "-c", "import llmest.formulas.measure"], cwd=outside, env=env)


def test_a_chapter_runs_from_the_wheel_outside_the_repository(installed):
    """Chapter 6 runs with the wheel's llmest in a folder with no tests/ beside it and prints what it pinned."""
    bin_dir, env, outside = installed
    chapter = outside / f"{CHAPTER}.ipynb"
    shutil.copy(ROOT / "solutions" / chapter.name, chapter)
    executed = outside / "executed.ipynb"
    script = ("import sys, nbformat, nbclient\n"
              "nb = nbformat.read(sys.argv[1], as_version=4)\n"
              "nb.cells.append(nbformat.v4.new_code_cell('import llmest; print(llmest.__file__)'))\n"
              "nbclient.NotebookClient(nb, timeout=300, kernel_name='python3',"
              " resources={'metadata': {'path': sys.argv[3]}}).execute()\n"
              "nbformat.write(nb, sys.argv[2])\n")
    _run([str(bin_dir / "python"), "-c", script, str(chapter), str(executed), str(outside)], cwd=outside, env=env)
    ran, pinned = nbformat.read(executed, as_version=4), nbformat.read(chapter, as_version=4)
    assert Path(ran.cells[-1].outputs[0].text.strip()).is_relative_to(bin_dir.parent)
    checked = 0
    for before, after in zip(pinned.cells, ran.cells):
        if "nbval-check-output" in before.metadata.get("tags", []):
            assert _printed(after) == _printed(before), before.source
            checked += 1
    assert checked


@pytest.mark.parametrize("path", sorted(ROOT.glob("*/*.ipynb")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_notebook_opens_a_path_under_tests(path):
    """What a chapter reads ships with the package: nothing reaches into the test suite's folder."""
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "code":
            assert not re.search(r"""["'/]tests["'/]""", cell.source), cell.source


def _printed(cell) -> str:
    return "".join(out.text for out in cell.outputs if out.output_type == "stream")


CHAPTERS = [*sorted((ROOT / "solutions").glob("*.ipynb")), *sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))]


def _first_code_cell(path):
    return next(c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_chapter_installs_the_workbook_on_colab_first(path):
    """The first code cell installs llmest from the repository on Colab (chapter 6 with torch)."""
    lines = _first_code_cell(path).source.splitlines()
    assert lines[0].startswith("#") and "Colab" in lines[0]
    assert 'if "google.colab" in sys.modules:' in lines
    install = re.fullmatch(r'    %pip install --quiet "llmest\[([\w,]+)\] @ git\+(\S+)"', lines[-1])
    assert install and install.group(2) == REPOSITORY, lines[-1]
    extras = set(install.group(1).split(","))
    assert extras <= set(PYPROJECT["project"]["optional-dependencies"])
    assert ("measure" in extras) == ("import torch" in path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("on_colab", [False, True], ids=["elsewhere", "on-colab"])
def test_the_colab_cell_installs_only_on_colab(on_colab, monkeypatch):
    """The cell as IPython runs it (its %pip made a call), with and without Colab's module loaded."""
    from IPython.core.inputtransformer2 import TransformerManager

    cell = _first_code_cell(CHAPTERS[0])
    calls = []

    class Shell:
        def run_line_magic(self, name, line):
            calls.append((name, line))

    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    if on_colab:
        monkeypatch.setitem(sys.modules, "google.colab", type(sys)("google.colab"))
    exec(TransformerManager().transform_cell(cell.source), {"get_ipython": Shell})
    if on_colab:
        assert calls == [("pip", f'install --quiet "llmest[chapters] @ git+{REPOSITORY}"')]
    else:
        assert calls == []


def test_environment_yml_follows_repo2docker():
    """Binder builds environment.yml: conda-forge, a Python, pip, and the workbook from the repository itself."""
    yaml = require("yaml")  # PyYAML comes with Jupyter (jupyter-events)
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    assert env["channels"] == ["conda-forge"]
    deps = env["dependencies"]
    python = [d for d in deps if isinstance(d, str) and re.fullmatch(r"python=3\.\d+", d)]
    assert python and int(python[0].split(".")[1]) >= int(PYPROJECT["project"]["requires-python"].split(".")[1])
    assert "pip" in deps
    pip = [d["pip"] for d in deps if isinstance(d, dict) and "pip" in d]
    assert len(pip) == 1
    extras = [set(m.group(1).split(",")) for line in pip[0] if (m := re.fullmatch(r"(?:-e )?\.\[([\w,]+)\]", line))]
    assert extras and {"workbook", "app"} <= extras[0]


def test_the_readme_opens_binder_colab_and_the_pages():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first_screen = "\n## ".join(readme.split("\n## ")[:3])  # the title's part, the two commands, the other ways in
    assert f"https://mybinder.org/v2/gh/{OWNER_REPO}/HEAD?urlpath=lab/tree/notebooks" in first_screen
    app = re.search(rf"https://mybinder\.org/v2/gh/{OWNER_REPO}/HEAD\?urlpath=voila/render/(\S+?\.ipynb)", first_screen)
    assert app and (ROOT / app.group(1)).is_file()  # Voila's server extension serves the app on Binder
    colab = f"https://colab.research.google.com/github/{OWNER_REPO}/blob/main/notebooks"
    for chapter in sorted((ROOT / "notebooks").glob("[0-9]*.ipynb")):
        assert f"{colab}/{chapter.name}" in first_screen
    assert "make html" in first_screen and "make lab" in first_screen and "make test" in first_screen
    for image in re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", first_screen):
        if not image.startswith("http"):
            assert (ROOT / image).is_file(), image

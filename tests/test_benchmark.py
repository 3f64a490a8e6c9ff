"""``make bench`` cannot rot: each of its steps runs here on a tiny input (the browser step runs in
tests/test_browser.py, on the chapter that test already has open). The figures themselves are read from
``make bench``, not asserted: timings on a shared 2-core machine are not a test."""

import re

import nbformat

import benchmark

MEDIAN = re.compile(r"median\s+[\d.]+ (?:ms|µs|s)\b")


def test_the_import_step(capsys):
    benchmark.bench_import(repeat=1)
    assert MEDIAN.search(capsys.readouterr().out)


def test_the_counting_step_compares_with_transformers(capsys):
    benchmark.bench_counting(names=("gpt2",), rounds=1, inner=1)
    out = capsys.readouterr().out
    assert "gpt2" in out and "slowest ratio" in out


def test_the_calculator_step(capsys):
    benchmark.bench_calculator(repeat=2)
    assert MEDIAN.search(capsys.readouterr().out)


def test_the_layout_search_step(capsys):
    benchmark.bench_layout_search(cases=(("llama-2-7b", 8, "H100 SXM", 4096, 2**20, "1f1b", 1),), repeat=1,
                                  command_repeat=1)
    out = capsys.readouterr().out
    assert "llama-2-7b" in out and "llmest layout" in out and len(MEDIAN.findall(out)) == 2


def test_the_chapter_step(tmp_path, capsys):
    path = tmp_path / "tiny.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import llmest")]), path)
    benchmark.bench_chapters(paths=[path])
    assert re.search(r"tiny\.ipynb\s+[\d.]+ s", capsys.readouterr().out)


def test_every_step_is_tested_here_or_in_the_browser_test():
    steps = {name for name in dir(benchmark) if name.startswith("bench_")}
    here = {"bench_import", "bench_counting", "bench_calculator", "bench_layout_search", "bench_chapters"}
    assert steps == here | {"bench_calculator_in_browser"}

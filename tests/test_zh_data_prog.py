"""The texts a reader sees from progress, the material's status rule and the plans' summaries read in Chinese
under ``speaking("zh")``, and stay the English of the chapters' pinned outputs outside it."""

import random
import textwrap
from datetime import datetime, timedelta, timezone

import pytest

import llmest as le
from llmest import plans, progress
from llmest.book.edition import english_prose
from llmest.core.i18n import speaking
from llmest.plans.findings import compute as compute_findings
from llmest.plans.findings import data as data_findings

START = datetime(2026, 6, 1, 18, 0, tzinfo=timezone.utc)
TODAY = START + timedelta(days=14)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """Chapter 5's made-up learner: two weeks of reviews, twelve cards a day."""
    store = progress.Store(tmp_path_factory.mktemp("zh") / "progress.sqlite3")
    rng = random.Random(5)
    recall = {"parameters": 0.9, "compute": 0.8, "data": 0.7, "memory": 0.55, "serving": 0.4}
    for day in range(14):
        now = START + timedelta(days=day)
        for entry in progress.due(store, now)[:12]:
            known = rng.random() < recall[entry.item.topic]
            store.review(entry.item.id, entry.item.topic, progress.rating("correct" if known else "wrong"), known, now)
    return store


def _request():
    return plans.estimate_request("llama-2-7b", "A100 80GB", prompt_tokens=512, output_tokens=256, batch=16)


def _corpus():
    return plans.estimate_corpus(gpus=64, days=30, peak_flops_per_s=200e12, mfu=0.5, mix={"chinese": 1.0})


def _shown():
    """Every text of these modules a chapter prints, as a reader sees it in the current language."""
    yield from (progress.next_review_text(timedelta(minutes=m)) for m in (10, 300, 1440, 46 * 1440))
    yield str(_request().report(100))
    yield str(compute_findings.attention_time(2e12, model="llama-2-7b", gpus=256, seq_len=4096))
    yield str(data_findings.crawls([plans.estimate_corpus(7e9, tokens=140e9, mix={"chinese": 1.0},
                                                          cleaning_yield=0.2)]))
    yield str(data_findings.crawls([plans.estimate_corpus(7e9, mix={"english": 0.5, "code": 0.5})]))
    yield str(plans.estimate_corpus(7e9, mix={"english": 0.5, "code": 0.5}))
    yield str(_corpus())
    yield str(data_findings.material_tokens(_corpus(), 140e9))
    yield textwrap.fill(le.material.STATUS_RULE, 100)
    yield f"{le.material.STATUS_RULE}"


def test_the_english_is_the_chapters_pinned_output(store):
    assert progress.next_review_text(timedelta(days=2)) == "next review in 2 days"
    assert [progress.interval_text(timedelta(minutes=m)) for m in (10, 300, 1440)] == ["10 min", "5 h", "1 day"]
    assert str(_request().report(100)).splitlines() == [
        "request         16 × (512 prompt + 256 output tokens) on A100 80GB, bf16 weights",
        "TTFT            876.25 ms: 1.09e14 FLOPs of prefill at 40% of the peak (compute-bound)",
        "TPOT            9.24 ms a step at 640 tokens of context (memory-bound: memory 9.24 ms, compute 0.69 ms)",
        "throughput      1,731 output tokens/s while decoding; a request takes 3.23 s",
        "memory per GPU  20.4 GB (fits: 68.7 GB usable, 20% kept free)",
        "KV cache        48 blocks of 16 tokens a sequence, 0 B of it in the last block's empty slots",
        "max batch       135 sequences",
        "price           $0.074 per million input tokens, $0.401 per million output tokens at $2.50 per GPU-hour, "
        "the listed price of the A100 80GB: the middle of the material's ~$2-3 per hour (seed 000)",
        "GPUs needed     21 for 100 requests/s"]
    assert str(compute_findings.attention_time(2e12, model="llama-2-7b", gpus=256, seq_len=4096)) == (
        "6·N·D only: 28.7 days; with the attention at 4,096 tokens: 33.4 days at the same 40% MFU, which on 6·N·D "
        "alone is 34.4%")
    assert str(data_findings.crawls([plans.estimate_corpus(7e9, tokens=140e9, mix={"chinese": 1.0},
                                                           cleaning_yield=0.2)])) == (
        "yield 20%: 140B tokens / 260M per GB = 538 GB cleaned, / 20% = 2.69 TB of raw crawl")
    assert str(_corpus()).splitlines() == [
        "64 GPUs, 30 days  1.66e22 FLOPs at 200 TFLOPS and 50% MFU; compute-optimal: 11.8B parameters on 235B tokens",
        "parameters        11.8B (the compute-optimal model)",
        "tokens            235B (20 per parameter)",
        "cleaned Chinese   904 GB at 260M tokens per GB",
        "raw crawl         3.62 TB at a 25% cleaning yield"]
    assert str(data_findings.material_tokens(_corpus(), 140e9)) == (
        "the material's 140B tokens instead: 19.7B parameters, 7.1 tokens per parameter")
    assert str(le.material.STATUS_RULE).startswith("confirmed: the recomputed value lies within")
    assert textwrap.fill(le.material.STATUS_RULE, 100) == textwrap.fill(str(le.material.STATUS_RULE), 100)
    seen = str(progress.progress(store, TODAY))
    assert seen.startswith("2026-06-15: 11 cards due, 42 new\n") and "\nReview next:\n" in seen
    assert "  serving    30% right of its last 20; 12 to review today" in seen.splitlines()
    plan = progress.study_plan(store, interview=TODAY.date() + timedelta(days=10), minutes_per_day=30, today=TODAY)
    assert str(plan).splitlines()[:2] == [
        "Study plan: 10 days to the interview on 2026-06-25, 30 minutes a day; weakest topics first: serving, memory, "
        "data, parameters, compute.",
        "2026-06-15 Mon: review 11 due cards (13 min); serving drills (17 min)"]
    assert str(plan).splitlines()[-1] == "2026-06-24 Wed: a mixed timed session (30 min)"


def test_what_a_reader_sees_reads_in_chinese(store):
    english = list(_shown())
    with speaking("zh"):
        chinese = list(_shown())
        seen = str(progress.progress(store, TODAY))
        plan = str(progress.study_plan(store, interview=TODAY.date() + timedelta(days=10), minutes_per_day=30,
                                       today=TODAY))
        rest = str(progress.study_plan(store, interview=TODAY.date() + timedelta(days=1), minutes_per_day=5,
                                       today=TODAY))
    for text in chinese + plan.splitlines() + rest.splitlines():
        assert not english_prose(text), text
    for line in seen.splitlines():
        if not line.startswith("  ") or ":" not in line[:8]:  # the due cards list their fronts, the flashcards' own
            assert not english_prose(line), line
    assert "推理服务" in seen and "今天待复习" in seen and "周一" in plan and "、" in plan
    assert "核实无误" in chinese[-1] and "计算受限" in chinese[4]
    assert list(_shown()) == english  # the English again outside the block


def test_the_status_rule_stays_a_text_that_compares_as_its_english():
    rule = le.material.STATUS_RULE
    assert isinstance(rule, str) and rule == str(rule) and "erratum:" in rule
    with speaking("zh"):
        assert rule.startswith("confirmed:") and str(rule).startswith("核实无误")


def test_attention_time_needs_a_sequence_length():
    with pytest.raises(le.InputError, match="seq_len"):
        compute_findings.attention_time(2e12, model="llama-2-7b", gpus=256, seq_len=None)

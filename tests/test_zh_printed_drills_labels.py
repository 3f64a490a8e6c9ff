"""Chapter 5's remaining labels as library text: the worked training steps, the LoRA adapters, a memory breakdown's
parts, the micro-batch table, the best layouts, the deck, a drill's heading and the review log. English with the
chapter's figures; Chinese with no English prose under speaking("zh")."""

import tempfile
from datetime import datetime, timedelta, timezone

import pytest

import llmest as le
from llmest import InputError, answers_text, drills, flashcards, layout_tables, plans, progress, tables
from llmest import memory as mem
from llmest.book.edition import english_prose
from llmest.core.i18n import speaking

START = datetime(2026, 6, 1, 18, 0, tzinfo=timezone.utc)


def texts():
    store = progress.Store(tempfile.mkdtemp() + "/w5.sqlite3")
    store.review("drill:training-days", "compute", progress.rating("correct"), True, START)
    found = plans.search_layouts(le.preset("llama-2-70b"), 64, "H100 SXM", 4096, 4 * 2**20)
    return {
        "steps": answers_text.training_steps_text(7e9, 1e12, "A100 80GB", mfu=0.4, gpus=256),
        "adapters": answers_text.lora_adapters_text("llama-2-70b", 64, mem.LORA_TARGETS),
        "breakdown": str(plans.qlora_memory(le.preset("llama-2-70b"), rank=64, micro_batch=1, seq_len=2048)),
        "micro-batches": str(tables.micro_batch_memory("llama-2-7b", zero=3, dp=8, seq_len=4096)),
        "layouts": layout_tables.best_layouts_text([found]),
        "deck": flashcards.deck_text(),
        "heading": drills.heading(drills.generate("training-days", seed=1, level="easy")),
        "review": progress.review_text(START, "correct", START + timedelta(days=2)),
        "reviews": progress.reviews_text(store),
    }


def test_english_keeps_the_chapters_figures():
    t = texts()
    assert t["steps"].splitlines() == [
        "1. FLOPs = 6 × 7e9 × 1e12 = 4.2e22", "2. GPU-seconds = FLOPs / (312 TFLOPS × 40%) = 336,538,462",
        "3. GPU-hours = GPU-seconds / 3,600 = 93,483", "4. One A100: 3,895 days = 10.7 years",
        "5. 256 A100s: 15.2 days", "6. States: 2 + 4 + 2 + 8 = 16 bytes a parameter -> 112 GB"]
    assert t["adapters"] == "adapters: rank 64 on 7 projections = 828M parameters"
    assert t["breakdown"].splitlines()[0] == "weights         36.4 GB"
    assert t["breakdown"].splitlines()[-1] == "total           54.0 GB  per GPU"
    assert "static (states, ZeRO-3's buffers, runtime) per GPU: 15.3 GB" in t["micro-batches"]
    assert "74.8 GB" in t["micro-batches"] and "35.3 GB" in t["micro-batches"]
    assert t["layouts"] == ("   64 GPUs: TP 1 × CP 8 × PP 8 × DP   1, ZeRO-1, 1024 micro-batches: step  53.32 s, "
                            "bubble  0.36 s, communication exposed  0.43 s, MFU 55.2%")
    assert t["deck"].startswith("33 cards: 4 parameters, 10 memory, 10 compute, 5 data, 4 serving\nfor example: ")
    assert t["heading"].startswith("[compute, easy] 256 A100 80GB GPUs")
    assert t["review"] == "2026-06-01 18:00  correct ( Good)  next review in 2 days"
    assert t["reviews"] == "1 reviews of 1 cards"


def test_chinese_has_no_english_prose():
    with speaking("zh"):
        t = texts()
    for name, text in t.items():
        assert not english_prose(text), (name, text)
    assert "4. 一张 A100：3,895 天 = 10.7 年" in t["steps"]
    assert t["breakdown"].splitlines()[0] == "权重" + " " * 9 + "   36.4 GB"  # lined up by display width
    assert t["heading"].startswith("[计算，简单]")
    assert "答对" in t["review"] and "共 33 张卡片" in t["deck"]


def test_bad_input_names_the_parameter():
    with pytest.raises(InputError, match="sizes"):
        tables.micro_batch_memory("llama-2-7b", sizes=())
    with pytest.raises(InputError, match="searches"):
        layout_tables.best_layouts_text([])
    with pytest.raises(InputError, match="example"):
        flashcards.deck_text(example="no such card")
    with pytest.raises(InputError, match="problem"):
        drills.heading("a question")
    with pytest.raises(InputError, match="store"):
        progress.reviews_text("progress.sqlite3")

"""Chapter 4, data and tokens: the figures of seed 004 §4 (§4.3's reverse budget is registered with chapter 3, whose
functions it uses)."""

from __future__ import annotations

from ...formulas import data as dt
from ...core.units import format_bytes, format_count
from ...core.i18n import N_, _
from .figure import Figure, code_count, register

_S41 = "§4.1 Chinchilla法则：20倍参数量的token数从哪来"
_S42 = "§4.2 从语料库到token：文本规模怎么换算"


_ENGLISH = dt.tokens_per_gb("english")   # the workbook's measured English rate
_CHINESE = dt.tokens_per_gb("chinese")
# The texts measured (llmest/catalog/corpora/measured.json names them), for the catalog.
_TEXTS = (N_("Debian manpages: English man pages (sections 1-8)"),
          N_("Debian manpages-zh: simplified-Chinese man pages (zh_CN)"),
          N_("the Python standard library's .py files (without test/ and site-packages)"))


def _english_gb() -> float:
    return dt.cleaned_bytes(140e9, _ENGLISH)


def _measured(kind):
    def recompute():
        return dt.tokens_per_gb(kind)
    return recompute


def _measured_cause(kind, extra=""):
    def cause():
        row = dt.MEASURED[kind]
        shown = ", ".join(_("{rate} with {tokenizer}").format(rate=format_count(dt.measured_tokens_per_gb(kind, t)),
                                                               tokenizer=t) for t in dt.TOKENIZERS)
        low = min(dt.measured_spread(kind, t)[0] for t in dt.TOKENIZERS)
        high = max(dt.measured_spread(kind, t)[1] for t in dt.TOKENIZERS)
        return _("The material names no tokenizer. Measured on {size} of {text}: {shown}; its ten sub-samples range "
                 "from {low} to {high}. The workbook uses the tokenizers' median, {median}.{extra}").format(
            size=format_bytes(row["bytes"]), text=_(row["name"]), shown=shown, low=format_count(low),
            high=format_count(high), median=format_count(dt.tokens_per_gb(kind)), extra=_(extra))
    return cause


register(
    Figure("004-4.1-7b", 4, "004", _S41, N_("tokens for a 7B by the 20× rule"), "7B模型大约配1400亿token", 140e9,
           lambda: dt.chinchilla_tokens(7e9), "chinchilla_tokens(7e9)", unit="tokens"),
    Figure("004-4.1-70b", 4, "004", _S41, N_("tokens for a 70B by the 20× rule"), "70B模型大约配1.4万亿token", 1.4e12,
           lambda: dt.chinchilla_tokens(70e9), "chinchilla_tokens(70e9)", unit="tokens"),
    Figure("004-4.1-overtrain", 4, "004", _S41, N_("tokens per parameter of the material's smaller-but-longer example"),
           "训练token数约等于参数量的20倍 … 倾向于在同样预算下把模型做小、把数据喂多比如7B模型训2000亿token",
           (20, None), lambda: 200e9 / 7e9, "200B / 7B", unit="tokens/param", rel_tol=0.0,
           cause=N_("More than the rule's 20, as the example intends; real models meant for cheap serving go much "
                 "further (below).")),
    Figure("004-4.1-epochs", 4, "004", _S41, N_("epochs of repeated data before it hurts"),
           "大规模预训练通常尽量只跑一个epoch最多两个。同一批高质量数据被反复训练会带来严重的过拟合和记忆问题",
           (None, 2), lambda: dt.EPOCHS_NEARLY_FREE, N_("llmest.data.EPOCHS_NEARLY_FREE, from Muennighoff et al. 2023"),
           unit="epochs",
           literature=((N_("for loss, up to about 4 epochs of repeated data are nearly as good as unique data; beyond "
                        "that more repetition is worth less and less"), N_("Muennighoff et al. 2023, Scaling "
                        "Data-Constrained Language Models, models up to 9B, arXiv 2305.16264")),
                       (N_("memorisation grows log-linearly with the number of times a sequence is repeated in "
                           "training"),
                        "Carlini et al. 2023, Quantifying Memorization Across Neural Language Models, ICLR, "
                        "arXiv 2202.07646")),
           cause=N_("They measure different things. By loss, two epochs is cautious, not a limit; the material's worry "
                 "is memorisation, which Carlini et al. find grows with every repeat, and which loss does not show.")),
    Figure("004-4.2-english", 4, "004", _S42, N_("tokens per GB of cleaned English"), "英语…每GB文本能产出2.5亿到3亿token",
           (2.5e8, 3e8), _measured("english"), N_("tokens_per_gb('english'): man pages, three tokenizers"),
           unit="tokens/GB",
           depends_on=N_("the tokenizer and the text"),
           cause=_measured_cause("english", N_(" Man pages are technical prose, full of options and short words; "
                                            "everyday prose runs nearer 4 characters a token (OpenAI's rule of "
                                            "thumb), 2.5e8 tokens per GB."))),
    Figure("004-4.2-chinese", 4, "004", _S42, N_("tokens per GB of cleaned Chinese"), "中文…大约每GB产出3亿到4亿token",
           (3e8, 4e8), _measured("chinese"), N_("tokens_per_gb('chinese'): Chinese man pages, three tokenizers"),
           unit="tokens/GB",
           depends_on=N_("the tokenizer and the text"),
           cause=_measured_cause("chinese", N_(" A Chinese character is 3 bytes in UTF-8; a tokenizer with more "
                                            "Chinese in its vocabulary (o200k_base, voyage3_base) needs fewer tokens "
                                            "than cl100k_base. A quarter of the pages' characters are Chinese, the "
                                            "rest commands and options in ASCII."))),
    Figure("004-4.2-code", 4, "004", _S42, N_("tokens per GB of code"), "代码文本视格式化程度约每GB产出2亿到3亿token",
           (2e8, 3e8), _measured("code"), N_("tokens_per_gb('code'): Python's standard library, three tokenizers"),
           unit="tokens/GB",
           depends_on=N_("the tokenizer and the text"), cause=_measured_cause("code")),
    Figure("004-4.2-english-gb", 4, "004", _S42,
           N_("cleaned English for 140B tokens at {rate} tokens per GB"),
           "按照英文语料约2.8亿token/GB来算 … 需要准备大约500GB清洗后的英文文本", 500e9, _english_gb,
           f"cleaned_bytes(140e9, tokens_per_gb('english') = {code_count(_ENGLISH)})", unit="bytes",
           depends_on=N_("the tokenizer behind its 2.8亿 tokens per GB"), values=(("rate", code_count(_ENGLISH)),),
           cause=lambda: _("The material's arithmetic is right at its 2.8e8 tokens per GB ({bytes}); the "
                           "workbook's measured {rate} gives {measured}.").format(
               bytes=format_bytes(dt.cleaned_bytes(140e9, 2.8e8)), rate=format_count(_ENGLISH),
               measured=format_bytes(_english_gb()))),
    Figure("004-4.2-raw", 4, "004", _S42, N_("raw crawl for that, at a 20-30% cleaning yield"),
           "可能要准备2到2.5TB的原始数据", (2e12, 2.5e12), lambda: dt.raw_bytes(_english_gb(), dt.WORKING_CLEANING_YIELD),
           N_("raw_bytes(cleaned English, 0.25), the workbook's yield"), unit="bytes", rel_tol=0.0,
           cause=lambda: _("From the material's 500 GB, 2-2.5 TB is the 20-25% part of its own 20-30% yield (2.5 TB "
                           "at 20% is exact; 30% would need {thirty}). From the workbook's {cleaned}: {low} to {high}.")
           .format(thirty=format_bytes(dt.raw_bytes(500e9, 0.3)), cleaned=format_bytes(_english_gb()),
                   low=format_bytes(dt.raw_bytes(_english_gb(), 0.3)),
                   high=format_bytes(dt.raw_bytes(_english_gb(), 0.2)))),
    Figure("004-4.2-chinese-gb", 4, "004", _S42,
           N_("cleaned Chinese for 140B tokens at {rate} tokens per GB"),
           "按3.5亿token/GB估400GB清洗后的中文文本就差不多了", 400e9,
           lambda: dt.cleaned_bytes(140e9, _CHINESE),
           f"cleaned_bytes(140e9, tokens_per_gb('chinese') = {code_count(_CHINESE)})",
           unit="bytes", depends_on=N_("the tokenizer behind its 3.5亿 tokens per GB"),
           values=(("rate", code_count(_CHINESE)),),
           cause=lambda: _("The material's arithmetic is right at its 3.5e8 tokens per GB ({bytes}); the "
                           "workbook's measured {rate} gives {measured}. The material does not work the raw crawl; "
                           "chapter 4 does.").format(bytes=format_bytes(dt.cleaned_bytes(140e9, 3.5e8)),
                                                     rate=format_count(_CHINESE),
                                                     measured=format_bytes(dt.cleaned_bytes(140e9, _CHINESE)))),
)

"""Chapter 1's exercises (parameters): each a question, the answer llmest computes, a tolerance, hints."""

from __future__ import annotations

from ...formulas import model as m
from ..grading import Exercise
from ...core.i18n import N_
from .registry import register


def _gqa_saving():
    cfg = m.preset("llama-2-70b")
    mha = m.attention_params(cfg.hidden_size, cfg.num_heads, cfg.num_heads, cfg.head_dim)
    gqa = m.attention_params(cfg.hidden_size, cfg.num_heads, cfg.num_kv_heads, cfg.head_dim)
    return cfg.num_layers * (mha - gqa)


register(
    Exercise(
        "1.1",
        N_("A dense model has 24 layers of hidden size 2,048 and a 50,000-token vocabulary. How many parameters does "
        "the material's rule (12·H² a layer, one embedding table) give?"),
        lambda: m.rule_params(2048, 24, 50000), rel_tol=0.02,
        hints=(N_("One layer holds about 12·H² parameters."), N_("Add V·H once for the embedding table."))),
    Exercise(
        "1.2",
        N_("Qwen2-0.5B: vocabulary 151,936, hidden 896, 24 layers, 14 query heads and 2 key/value heads of width 64, "
        "biases on Q, K and V only, a SwiGLU FFN of width 4,864, RMSNorm (a scale vector: two per layer and a "
        "final one), and an output head tied to the embedding. Count its parameters exactly."),
        lambda: m.count_params(m.preset("qwen2-0.5b")).total, rel_tol=1e-7,
        hints=(N_("Attention: Q and O are H × (14·64); K and V are H × (2·64) each; add the Q, K, V biases."),
               N_("SwiGLU: three matrices of H × F per layer (gate, up, down)."),
               N_("Norms: (2·L + 1)·H. The tied head adds nothing beyond the V·H embedding."))),
    Exercise(
        "1.3",
        N_("Someone plans a 30B dense model with 60 layers and a 32,000-token vocabulary. Which hidden size does the "
        "12·H² rule give? (Solve 12·L·H² + V·H = N.)"),
        lambda: m.rule_hidden_size(30e9, 60, 32000), rel_tol=0.05,
        hints=(N_("Ignore the embedding first: H ≈ √(N / (12·L))."),
               N_("Then correct for V·H, or use the quadratic formula and keep the positive root."))),
    Exercise(
        "1.4",
        N_("Llama-2-70B has 64 query heads but only 8 key/value heads (GQA), head width 128, hidden 8,192, 80 layers. "
        "How many parameters does GQA save over full multi-head attention, in the whole model?"),
        _gqa_saving, rel_tol=0.02,
        hints=(N_("Only K and V shrink; Q and the output projection keep their size."),
               N_("K and V are each H × (KV heads · head width): compare 64 KV heads with 8."),
               N_("Count both matrices, then every layer."))),
    Exercise(
        "1.5",
        N_("Mixtral-8x22B: 56 layers, hidden 6,144, 48 query and 8 key/value heads of width 128, 8 experts per layer "
        "(each a SwiGLU FFN of width 16,384), each token routed to 2, a 32,000-token vocabulary, untied head. "
        "How many parameters does one token use (the active parameters)?"),
        lambda: m.count_params(m.preset("mixtral-8x22b")).active, rel_tol=0.02,
        hints=(N_("Everything but the experts is used by every token."),
               N_("One expert holds 3 · 6144 · 16384 parameters; a token uses 2 of them in each layer."))),
    Exercise(
        "1.6",
        N_("GPT-2 XL ties its output head to its token embedding: vocabulary 50,257, hidden 1,600. How many "
        "parameters would an untied output head add?"),
        lambda: m.embedding_params(50257, 1600), rel_tol=0.01,
        hints=(N_("The head maps the hidden state to one score per token of the vocabulary."),)),
    Exercise(
        "1.7",
        N_("DeepSeek-V3's attention (multi-head latent attention): hidden 7,168, 128 heads. Queries go through a "
        "latent of 1,536 (H → 1,536, then 1,536 → 128 · (128 + 64)); keys and values come from a latent of 512 "
        "plus one rotary key of 64 that every head shares (H → 512 + 64), then 512 → 128 · (128 + 128); the output "
        "maps 128 · 128 back to H. No biases. How many parameters are in one layer's attention matrices (leave out "
        "the two latents' norms)?"),
        lambda: m.mla_attention_params(7168, 128, 512, 128, 64, 128, q_lora_rank=1536), rel_tol=0.02,
        hints=(N_("Count each matrix as rows × columns: five of them."),
               N_("The key/value down-projection is 7,168 × 576; its up-projection 512 × 32,768."),
               N_("For scale: ordinary attention with these head widths (Q and K 192, V and O 128) is about 3× "
                  "as many."))),
    Exercise(
        "1.8",
        N_("DeepSeek-V3: 61 layers, the first 3 dense, the other 58 each with 1 shared expert and 256 routed experts "
        "(each a SwiGLU FFN of width 2,048 on hidden 7,168), every token routed to 8 of them. The whole model holds "
        "671.0B parameters. How many parameters does one token use (embeddings and output head included)?"),
        lambda: m.count_params(m.preset("deepseek-v3")).active, rel_tol=0.02,
        hints=(N_("The shared expert, the dense layers, attention and the router are used by every token."),
               N_("One routed expert holds 3 · 7,168 · 2,048 parameters; a token skips 248 of them in each MoE layer."),
               N_("Subtract the skipped experts of all 58 MoE layers from the total."))),
)

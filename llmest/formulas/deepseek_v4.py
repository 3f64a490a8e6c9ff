"""The parts of DeepSeek-V4 that other models do not have, one formula a part, as transformers 5.24 builds them
(``models/deepseek_v4/modeling_deepseek_v4.py``) and the DeepSeek-V4 report describes them.

- **Shared-KV attention**: one key-value head whose keys are its values, one map H -> head_dim with its norm;
  queries through a latent of q_lora_rank (with its norm), as MLA's queries.
- **Grouped low-rank output**: the heads' outputs (heads·head_dim wide) split into g groups, each mapped to
  output_lora_rank channels, and the g·rank channels mapped to H, instead of one heads·head_dim -> H map.
- **Compressors**: on a compressed layer, besides its window of recent tokens, attention reads one entry per ``rate``
  earlier tokens, a softmax-gated sum of their projections. Compressed sparse attention (CSA, rate 4) uses two
  overlapping series (maps twice as wide) and a lightning indexer with its own compressor that keeps the top-k
  entries; heavily compressed attention (HCA, rate 128) one series and no indexer.
- **Hyper-connections** (mHC): the residual is ``streams`` copies of the hidden state; before attention and before
  the FFN a small map of all the streams gives the weights that collapse them into the block's input, spread its
  output back and mix the streams; a last one collapses them before the final norm.

Like llmest.formulas.params they use only + - * / and so work on numbers, NumPy arrays and SymPy symbols.
"""

from __future__ import annotations

from ..core import _validate as v
from ..core._validate import InputError, quote
from ..core.i18n import _
from .readers.config_file import sizes


def shared_kv_attention_params(hidden, n_heads, head_dim, q_lora_rank=None):
    """Queries (H -> heads·head_dim, or through a latent H -> q_lora_rank -> heads·head_dim) and one map
    H -> head_dim that is both the key and the value of every head. Without the output map (plain or grouped) and
    the norms (the query latent's and the key-value's), which are counted with the norms."""
    hidden, n_heads, head_dim = sizes(hidden=hidden, n_heads=n_heads, head_dim=head_dim)
    width = n_heads * head_dim
    if q_lora_rank is None:
        query = hidden * width
    else:
        q_lora_rank, = sizes(q_lora_rank=q_lora_rank)
        query = hidden * q_lora_rank + q_lora_rank * width
    return query + hidden * head_dim


def grouped_output_params(hidden, n_heads, head_dim, output_groups, output_lora_rank):
    """The grouped low-rank output map: g groups of heads·head_dim/g channels, each mapped to output_lora_rank
    (heads·head_dim·rank weights in all), then g·rank -> H. DeepSeek-V4-Flash: 32,768·1,024 + 8,192·4,096 = 67.1M a
    layer, half the plain 32,768 -> 4,096 map (134.2M)."""
    hidden, n_heads, head_dim = sizes(hidden=hidden, n_heads=n_heads, head_dim=head_dim)
    groups, rank = sizes(output_groups=output_groups, output_lora_rank=output_lora_rank)
    return n_heads * head_dim * rank + groups * rank * hidden


def compressor_params(hidden, head_dim, rate, overlap=False):
    """One attention compressor: a map H -> width for the entries and one for their gates, a learned bias per slot
    of a window (rate × width) and a norm over head_dim. With ``overlap`` (CSA) two series overlap, so the width is
    2·head_dim, else head_dim."""
    hidden, head_dim, rate = sizes(hidden=hidden, head_dim=head_dim, rate=rate)
    width = 2 * head_dim if v.check_bool("overlap", overlap) else head_dim
    return 2 * hidden * width + rate * width + head_dim


def compressed_indexer_params(hidden, q_lora_rank, index_heads, index_head_dim, rate):
    """The lightning indexer of compressed sparse attention: its own overlapping compressor at index_head_dim, its
    queries up from the query latent (q_lora_rank -> heads·index_head_dim) and a weight per head from H."""
    hidden, q_lora_rank = sizes(hidden=hidden, q_lora_rank=q_lora_rank)
    index_heads, index_head_dim = sizes(index_heads=index_heads, index_head_dim=index_head_dim)
    return (compressor_params(hidden, index_head_dim, rate, overlap=True) + q_lora_rank * index_heads * index_head_dim
            + hidden * index_heads)


def hyper_connection_params(hidden, streams):
    """One hyper-connection (there are two a layer, before attention and before the FFN): a map of the n streams
    side by side (n·H) to n collapse weights, n spread weights and n·n mixing weights, (2 + n)·n outputs, with a bias
    each and three scales."""
    hidden, streams = sizes(hidden=hidden, streams=streams)
    outputs = (2 + streams) * streams
    return outputs * streams * hidden + outputs + 3


def hyper_head_params(hidden, streams):
    """The last collapse of the n streams into one before the final norm: n·H -> n weights, a bias each and a
    scale."""
    hidden, streams = sizes(hidden=hidden, streams=streams)
    return streams * streams * hidden + streams + 1


def refuse_compressed_attention(cfg, what: str):
    """Refuse, by name, a question about the attention of a model with shared-KV and compressed attention
    (DeepSeek-V4): llmest counts its parameters, but its cache (a window, compressed entries, the compressors'
    buffers) and its attention FLOPs (entries picked by the indexer) are not modelled, and must not be answered as a
    plain MQA model's."""
    if cfg.shared_kv:
        raise InputError("model", _("model == {name} has DeepSeek-V4's attention (one shared key-value head, a "
                                    "window and compressed entries): llmest counts its parameters but does not model "
                                    "{what}.").format(name=quote(cfg.name), what=what))

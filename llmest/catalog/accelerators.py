"""The rows of the accelerator catalog (``hardware``): a GPU (or TPU, or other accelerator) with its peaks, memory
and sources, and the links its collectives cross (``Network``). The rows themselves are in ``hardware`` and
``newer_gpus``."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.i18n import N_, _
from ..core.units import format_bytes

TERA = 1e12
GB_S = 1e9
MIB, GIB = 2**20, 2**30


@dataclass(frozen=True)
class GPU:
    name: str                           # the vendor's label
    memory_bytes: float                 # exposed to programs
    bandwidth_bytes_per_s: float
    bf16_flops_per_s: float | None     # dense BF16 (or FP16) tensor-core peak, FP32 accumulate
    fp8_flops_per_s: float | None
    tf32_flops_per_s: float | None
    fp32_flops_per_s: float | None      # non-tensor FP32 (CUDA cores)
    interconnect_bytes_per_s: float | None
    interconnect: str
    source: str
    note: str = ""
    label_bytes: float | None = None    # the memory the vendor's label states ("80GB": 80e9)
    memory_source: str = ""             # where the exposed figure was read, or why it was assumed
    recalled: tuple = ()    # fields not found in a stored copy of the source: check before relying on them
    network: Network | None = None      # the links a collective crosses (NETWORK)
    smi_read: tuple = ()                # (card, MiB, where) of the nvidia-smi output read, where there is one
    fp4_flops_per_s: float | None = None    # dense FP4 tensor peak (NVFP4 or MXFP4), where the chip has one

    @property
    def memory_gb(self) -> float:
        return self.memory_bytes / 1e9

    @property
    def memory_gib(self) -> float:
        return self.memory_bytes / GIB

    @property
    def memory_text(self) -> str:
        """The exposed memory in both units: '80.0 GiB = 85.9 GB'."""
        return f"{format_bytes(self.memory_bytes, binary=True)} = {format_bytes(self.memory_bytes)}"

    @property
    def memory_source_shown(self) -> str:
        """``memory_source`` in the language shown."""
        if not self.smi_read:
            return _(self.memory_source)
        card, mib, where = self.smi_read
        return _(_SMI).format(card=card, mib=mib, where=_(where))


@dataclass(frozen=True)
class Network:
    """The links of a GPU in its reference server, per GPU and per direction (a ring collective's bytes leave each
    GPU one way while others arrive the other way, so a datasheet's bidirectional "600 GB/s" is 300 here)."""

    intra_node_bytes_per_s: float   # within a node: NVLink through NVSwitch, or PCIe
    inter_node_bytes_per_s: float   # between nodes: the GPU's own network port (InfiniBand, RoCE; TPUs: DCN)
    gpus_per_node: int              # GPUs that share the intra-node fabric: the scale-up domain (8 in an HGX
    #                                 server, 72 in a GB200 NVL72 rack, a TPU pod's ICI domain); a group of up
    #                                 to this many GPUs stays on it
    source: str
    recalled: bool = False          # not read in a stored copy of the source
    # (A collective's latency is NCCL's own model: llmest.plans.layout_assumptions.)


_SMI = N_("nvidia-smi: {card}, {mib} MiB, {where}")


def _smi(mib: int, card: str, where: str = N_("in public issues and logs")) -> dict:
    """The exposed memory nvidia-smi reports for a card, and where that output was read."""
    return dict(memory_bytes=mib * MIB, memory_source=_SMI.format(card=card, mib=f"{mib:,}", where=where),
                smi_read=(card, f"{mib:,}", where))

"""Accelerators as data: memory, bandwidth, dense peak FLOP/s by precision, interconnect, and where each figure
comes from.

Every peak is **dense** (no 2:4 sparsity): datasheets often print the sparse figure, twice the dense one.

Memory is what the device exposes to programs (``memory_bytes``: the total nvidia-smi reports, in MiB of 2**20
bytes, or the runtime's equivalent); fit checks and planners use it. The name keeps the vendor's label ("A100 80GB")
and ``label_bytes`` the label's own figure (80e9). The two differ because NVIDIA's HBM cards are sized in binary
units and labelled with the number alone: an "A100 80GB" exposes 81,920 MiB = 80 GiB = 85.9e9 bytes, 7% more than
80e9. The rule "label = GiB" is no law: an H100 80GB exposes 81,559 MiB (79.6 GiB), an L40S "48 GB" 46,068 MiB
(48.3e9 bytes, so its label is decimal), so each row carries its own exposed figure and ``memory_source`` says
where it was read (nvidia-smi output published with public issues and logs) or that it was assumed.

TPUs, Trainium and Gaudi are rows too (one chip each; a TPU's interconnect is ICI). A rack-scale system is a row
per GPU ("GB200 NVL72": one of its 72 GPUs), its ``network`` saying how many GPUs share one NVLink domain (72), so
the layout search keeps a tensor- or expert-parallel group of up to 72 on NVLink. ``fp4_flops_per_s`` is the dense
FP4 peak (NVFP4, MXFP4) of the chips that have one. The rows of 2024-2026 are in ``newer_gpus``.

No Ascend 910B row: no Huawei datasheet was found, and the published secondary figures contradict each other (64 GB
or 32 GB of HBM2e; 400 GB/s or 1.2 TB/s).

``None`` means the vendor states no such figure. ``recalled`` names the fields not found in a stored copy of the
source: check them before relying on them.
"""

from __future__ import annotations

from dataclasses import replace

from ..core._validate import InputError, check_number, lookup
from ..core.i18n import N_, _
from . import newer_gpus
from .accelerators import GB_S, GIB, GPU, MIB, TERA, Network, _smi  # noqa: F401 (the catalog's names)

def _rows():
    return [
        GPU("V100", bandwidth_bytes_per_s=900e9, bf16_flops_per_s=125 * TERA, fp8_flops_per_s=None,
            tf32_flops_per_s=None, fp32_flops_per_s=15.7 * TERA, interconnect_bytes_per_s=300e9,
            interconnect=N_("NVLink 2 (300 GB/s)"), source=N_("NVIDIA V100 datasheet (SXM2)"),
            note=N_("No BF16: 125 TFLOPS is FP16 tensor; 16 GB and 32 GB versions exist. Some drivers report "
                    "32,510 MiB (unconfirmed)."),
            label_bytes=32e9, recalled=("bandwidth",), **_smi(32_768, "Tesla V100-SXM2-32GB")),
        GPU("A100 80GB", bandwidth_bytes_per_s=2039e9, bf16_flops_per_s=312 * TERA, fp8_flops_per_s=None,
            tf32_flops_per_s=156 * TERA, fp32_flops_per_s=19.5 * TERA, interconnect_bytes_per_s=600e9,
            interconnect=N_("NVLink 3 (600 GB/s)"), source=N_("NVIDIA A100 datasheet (SXM, 80GB)"),
            note=N_("624 TFLOPS BF16 is the 2:4-sparse figure. The PCIe card exposes the same 81,920 MiB."),
            label_bytes=80e9, **_smi(81_920, "NVIDIA A100-SXM4-80GB")),
        GPU("A100 40GB", bandwidth_bytes_per_s=1555e9, bf16_flops_per_s=312 * TERA, fp8_flops_per_s=None,
            tf32_flops_per_s=156 * TERA, fp32_flops_per_s=19.5 * TERA, interconnect_bytes_per_s=600e9,
            interconnect=N_("NVLink 3 (600 GB/s)"),
            source=N_("NVIDIA A100 datasheet (SXM, 40GB); bandwidth, BF16 and FP32 as a public GPU catalog gives them "
                      "(huggingface.co/RajBhope/gpu-runtime-predictor, gpu_catalog.json)"),
            note=N_("624 TFLOPS BF16 is the sparse figure. Same compute as the A100 80GB, HBM2 at 1,555 GB/s. Older "
                    "drivers report 40,536 MiB (unconfirmed)."),
            label_bytes=40e9, recalled=("TF32", "interconnect"), **_smi(40_960, "NVIDIA A100-SXM4-40GB")),
        GPU("A800 80GB", bandwidth_bytes_per_s=2039e9, bf16_flops_per_s=312 * TERA, fp8_flops_per_s=None,
            tf32_flops_per_s=156 * TERA, fp32_flops_per_s=19.5 * TERA, interconnect_bytes_per_s=400e9,
            interconnect=N_("NVLink 3, cut (400 GB/s)"),
            source=N_("no NVIDIA datasheet found; secondary pages (tweakers.net, news 203182) say its compute is the "
                      "A100's and give NVLink 400 GB/s against the A100's 600 (also aiwiki.ai/wiki/nvidia_a800)"),
            note=N_("The export-controlled A100 80GB (SXM): the same compute, less NVLink. 624 TFLOPS BF16 is the "
                    "sparse figure."),
            label_bytes=80e9, recalled=("bandwidth", "BF16", "TF32", "FP32"),
            **_smi(81_920, "NVIDIA A800-SXM4-80GB", N_("in github.com/dexmal/dexbotic/issues/41"))),
        GPU("H100 SXM", bandwidth_bytes_per_s=3.35e12, bf16_flops_per_s=989.4 * TERA, fp8_flops_per_s=1979 * TERA,
            tf32_flops_per_s=494.7 * TERA, fp32_flops_per_s=67 * TERA, interconnect_bytes_per_s=900e9,
            interconnect=N_("NVLink 4 (900 GB/s)"), source=N_("NVIDIA H100 datasheet (SXM5)"),
            note=N_("1,979 TFLOPS BF16 is the sparse figure."),
            label_bytes=80e9, **_smi(81_559, "NVIDIA H100 80GB HBM3")),
        GPU("H100 PCIe", bandwidth_bytes_per_s=2.0e12, bf16_flops_per_s=756 * TERA, fp8_flops_per_s=1513 * TERA,
            tf32_flops_per_s=378 * TERA, fp32_flops_per_s=51 * TERA, interconnect_bytes_per_s=600e9,
            interconnect=N_("NVLink bridge (600 GB/s)"), source=N_("NVIDIA H100 datasheet (PCIe)"),
            note=N_("The datasheet prints sparse figures, 'one half lower without'."),
            label_bytes=80e9, **_smi(81_559, "NVIDIA H100 PCIe")),
        GPU("H800", bandwidth_bytes_per_s=3.35e12, bf16_flops_per_s=989.4 * TERA, fp8_flops_per_s=1979 * TERA,
            tf32_flops_per_s=494.7 * TERA, fp32_flops_per_s=67 * TERA, interconnect_bytes_per_s=400e9,
            interconnect=N_("NVLink 4, cut (400 GB/s)"),
            source=N_("NVIDIA states no figures; secondary pages say its compute is the H100 SXM's (philisun.com, "
                      "'nvidia-h800-vs-h100', with 80 GB HBM3 at 3.35 TB/s) and give NVLink 400 GB/s total against its "
                      "900 (aiwiki.ai/wiki/nvidia_h800)"),
            note=N_("The export-controlled H100 SXM: the same compute, less NVLink, FP64 cut to about 1 TFLOPS. "
                    "1,979 TFLOPS BF16 is the sparse figure."),
            label_bytes=80e9, recalled=("BF16", "FP8", "TF32", "FP32"), **_smi(81_559, "NVIDIA H800")),
        GPU("H20", bandwidth_bytes_per_s=4.0e12, bf16_flops_per_s=148 * TERA, fp8_flops_per_s=296 * TERA,
            tf32_flops_per_s=74 * TERA, fp32_flops_per_s=44 * TERA, interconnect_bytes_per_s=900e9,
            interconnect=N_("NVLink 4 (900 GB/s)"),
            source=N_("no NVIDIA datasheet is public (github.com/sunkx109/GPUs-Specs/issues/2); secondary pages: "
                      "zangshuxian.com (BF16 148, TF32 74, FP32 44), willitrunai.com/gpus/h20-96gb (96 GB HBM3, "
                      "4.0 TB/s, NVLink 900 GB/s)"),
            note=N_("Export-controlled Hopper with most of the compute removed. A 10240² BF16 matmul measured 142.25 "
                    "TFLOPS, 96% of 148 (github.com/zzc0721/torch-performance-test-data/issues/77). The pages print "
                    "296 for INT8, not FP8."),
            label_bytes=96e9, recalled=("FP8",), **_smi(97_871, "NVIDIA H20")),
        GPU("H200", bandwidth_bytes_per_s=4.8e12, bf16_flops_per_s=989.4 * TERA, fp8_flops_per_s=1979 * TERA,
            tf32_flops_per_s=494.7 * TERA, fp32_flops_per_s=67 * TERA, interconnect_bytes_per_s=900e9,
            interconnect=N_("NVLink 4 (900 GB/s)"), source=N_("NVIDIA H200 datasheet (SXM)"),
            note=N_("Same compute as H100 SXM; more and faster memory."),
            label_bytes=141e9, **_smi(143_771, "NVIDIA H200")),
        GPU("B200", bandwidth_bytes_per_s=7.7e12, bf16_flops_per_s=2250 * TERA, fp8_flops_per_s=4500 * TERA,
            tf32_flops_per_s=1100 * TERA, fp32_flops_per_s=75 * TERA, interconnect_bytes_per_s=1.8e12,
            interconnect=N_("NVLink 5 (1.8 TB/s)"), source=N_("NVIDIA HGX B200 datasheet"),
            note=N_("The datasheet's 180 GB per GPU is about the exposed 179 GiB; the 192 GB often quoted is about "
                    "the exposed bytes (192.3e9). 4,500 TFLOPS BF16 is sparse."),
            label_bytes=180e9, fp4_flops_per_s=9000 * TERA,
            **_smi(183_359, "NVIDIA B200", N_("in github.com/NVIDIA/TensorRT-LLM/issues/10278"))),
        GPU("RTX A6000", bandwidth_bytes_per_s=768e9, bf16_flops_per_s=154.8 * TERA, fp8_flops_per_s=None,
            tf32_flops_per_s=77.4 * TERA, fp32_flops_per_s=38.7 * TERA, interconnect_bytes_per_s=112.5e9,
            interconnect=N_("NVLink bridge, 2-way"), source=N_("NVIDIA Ampere GA102 whitepaper, Table 3"),
            note=N_("38.7 TFLOPS is the FP32 CUDA-core peak (10,752 cores × 2 × 1.80 GHz), not BF16."),
            label_bytes=48e9, recalled=("TF32", "interconnect"), **_smi(49_140, "NVIDIA RTX A6000")),
        GPU("RTX 4090", bandwidth_bytes_per_s=1008e9, bf16_flops_per_s=165.2 * TERA, fp8_flops_per_s=330.3 * TERA,
            tf32_flops_per_s=82.6 * TERA, fp32_flops_per_s=82.6 * TERA, interconnect_bytes_per_s=None,
            interconnect=N_("none (PCIe only)"), source=N_("NVIDIA Ada Lovelace whitepaper (v2.02), Appendix A"),
            note=N_("82.6 TFLOPS is the FP32 CUDA-core peak. Dense BF16 tensor (FP32 accumulate) is 165.2, as is FP16 "
                    "with FP32 accumulate; 330.3 is FP16 with FP16 accumulate, a mode BF16 does not have."),
            label_bytes=24e9, recalled=("TF32",),
            **_smi(24_564, "NVIDIA GeForce RTX 4090", N_("in github.com/RLinf/RLinf/issues/255 and "
                                                         "github.com/vllm-project/vllm/issues/7553"))),
        GPU("L40S", bandwidth_bytes_per_s=864e9, bf16_flops_per_s=362.05 * TERA, fp8_flops_per_s=733 * TERA,
            tf32_flops_per_s=183 * TERA, fp32_flops_per_s=91.6 * TERA, interconnect_bytes_per_s=None,
            interconnect=N_("none (PCIe Gen4)"), source=N_("NVIDIA L40S datasheet"),
            note=N_("733 TFLOPS BF16 is the sparse figure. Its '48 GB' is decimal: it exposes 45.0 GiB."),
            label_bytes=48e9,
            **_smi(46_068, "NVIDIA L40S", N_("in github.com/akash-network/provider-configs/pull/99"))),
        GPU("L4", bandwidth_bytes_per_s=300e9, bf16_flops_per_s=121 * TERA, fp8_flops_per_s=242.5 * TERA,
            tf32_flops_per_s=60 * TERA, fp32_flops_per_s=30.3 * TERA, interconnect_bytes_per_s=None,
            interconnect=N_("none (PCIe Gen4 x16)"), source=N_("NVIDIA L4 datasheet (its figures unconfirmed)"),
            note=N_("242 TFLOPS BF16 is the sparse figure (485 for FP8). 24 GB of GDDR6, 72 W; no FP64."),
            label_bytes=24e9, recalled=("bandwidth", "BF16", "FP8", "TF32", "FP32", "interconnect"),
            **_smi(23_034, "NVIDIA L4")),
        GPU("MI300X", memory_bytes=8 * 25_767_706_624, bandwidth_bytes_per_s=5.3e12, bf16_flops_per_s=1307.4 * TERA,
            fp8_flops_per_s=2614.9 * TERA, tf32_flops_per_s=653.7 * TERA, fp32_flops_per_s=163.4 * TERA,
            interconnect_bytes_per_s=896e9, interconnect=N_("Infinity Fabric 896 GB/s"),
            source=N_("AMD Instinct MI300X datasheet"),
            note=N_("Exposed memory: one of eight CPX-mode partitions reports 25,767,706,624 bytes; the total, 8 times "
                    "that (192.0 GiB), is inferred."),
            label_bytes=192e9, recalled=("TF32", "interconnect", N_("exposed memory")),
            memory_source=N_("ROCm: size_in_bytes of one CPX partition, github.com/ROCm/legacy-rocm-build/issues/4750; "
                             "× 8 inferred")),
        GPU("TPU v4", memory_bytes=32 * GIB, bandwidth_bytes_per_s=1200e9, bf16_flops_per_s=275 * TERA,
            fp8_flops_per_s=None, tf32_flops_per_s=None, fp32_flops_per_s=None, interconnect_bytes_per_s=None,
            interconnect=N_("ICI (3D torus)"),
            source=N_("Cloud TPU docs, TPU v4 'System architecture' (docs.cloud.google.com/tpu/docs/v4)"),
            note=N_("One chip; a pod is 4,096 chips in a 3D torus. The docs give ICI only per pod (all-reduce 1.1 "
                    "PB/s, bisection 24 TB/s), not per chip."),
            label_bytes=32 * GIB, recalled=(N_("exposed memory"),),
            memory_source=N_("the vendor's 32 GiB HBM2, taken as exposed; the runtime's figure was not found")),
        GPU("TPU v5e", memory_bytes=16 * GIB, bandwidth_bytes_per_s=819e9, bf16_flops_per_s=197 * TERA,
            fp8_flops_per_s=None, tf32_flops_per_s=None, fp32_flops_per_s=None, interconnect_bytes_per_s=400e9,
            interconnect=N_("ICI (400 GB/s)"),
            source=N_("Cloud TPU docs, TPU v5e 'System architecture' (docs.cloud.google.com/tpu/docs/v5e)"),
            note=N_("One chip; a pod is 256 chips in a 2D torus; ICI 400 GB/s both directions; INT8 393 TOPS. "
                    "Versions of the docs disagree: 800 GiBps for HBM, and 1,600 Gbps ICI (one direction, it seems) "
                    "on the older cloud.google.com/tpu/docs/v5e."),
            label_bytes=16e9, recalled=(N_("exposed memory"),),
            memory_source=N_("assumed 16 GiB (binary-sized HBM2, as NVIDIA's HBM cards); the docs say '16 GB' and the "
                             "runtime's figure was not found")),
        GPU("TPU v5p", memory_bytes=95 * GIB, bandwidth_bytes_per_s=2765e9, bf16_flops_per_s=459 * TERA,
            fp8_flops_per_s=None, tf32_flops_per_s=None, fp32_flops_per_s=None, interconnect_bytes_per_s=1200e9,
            interconnect=N_("ICI (1,200 GB/s)"),
            source=N_("Cloud TPU docs, TPU v5p (cloud.google.com/tpu/docs/v5p-training)"),
            note=N_("One chip; a pod is 8,960 chips in a 3D torus; ICI 1,200 GB/s both directions; DCN 50 Gbps a "
                    "chip. One version of the docs lists FP8 at 459 TFLOPS, the BF16 figure, left out here; the older "
                    "one gives ICI as 4,800 Gbps."),
            label_bytes=95e9, recalled=(N_("exposed memory"),),
            memory_source=N_("95 GiB, as one version of the docs heads its column ('HBM capacity per chip (GiB)'); "
                             "another says 95 GB; the runtime's figure was not found")),
    ]


_DGX_A100 = "DGX A100: NVLink 3 at 600 GB/s both ways, 8 HDR InfiniBand ports of 200 Gb/s for 8 GPUs"
_DGX_H100 = "DGX H100: NVLink 4 at 900 GB/s both ways, 8 NDR InfiniBand ports of 400 Gb/s for 8 GPUs"
_PCIE4 = "no NVLink between more than two cards: PCIe 4.0 x16, 32 GB/s each way; a 100 Gb/s port per node assumed"
NETWORK = {
    "V100": Network(150 * GB_S, 100 / 8 * GB_S / 2, 8, "DGX-1V: NVLink 2 at 300 GB/s both ways; 4 EDR InfiniBand "
                    "ports of 100 Gb/s for 8 GPUs", recalled=True),
    "A100 80GB": Network(300 * GB_S, 200 / 8 * GB_S, 8, _DGX_A100),
    "A100 40GB": Network(300 * GB_S, 200 / 8 * GB_S, 8, _DGX_A100),
    "A800 80GB": Network(200 * GB_S, 200 / 8 * GB_S, 8, "NVLink cut to 400 GB/s both ways; DGX A100's network",
                         recalled=True),
    "H100 SXM": Network(450 * GB_S, 400 / 8 * GB_S, 8, _DGX_H100),
    "H100 PCIe": Network(64 * GB_S, 400 / 8 * GB_S, 8, "NVLink bridges join pairs only: PCIe 5.0 x16, 64 GB/s "
                         "each way; a 400 Gb/s port per GPU assumed", recalled=True),
    "H800": Network(200 * GB_S, 400 / 8 * GB_S, 8, "NVLink cut to 400 GB/s both ways; 400 Gb/s InfiniBand per GPU "
                    "(DeepSeek-V3's cluster: about 160 GB/s NVLink and 50 GB/s InfiniBand achieved)"),
    "H20": Network(450 * GB_S, 400 / 8 * GB_S, 8, "NVLink 4 at 900 GB/s both ways; DGX H100's network assumed",
                   recalled=True),
    "H200": Network(450 * GB_S, 400 / 8 * GB_S, 8, "HGX H200: NVLink 4 at 900 GB/s both ways; DGX H100's network"),
    "B200": Network(900 * GB_S, 400 / 8 * GB_S, 8, "DGX B200: NVLink 5 at 1.8 TB/s both ways, 8 ConnectX-7 ports "
                    "of 400 Gb/s for 8 GPUs"),
    "RTX A6000": Network(32 * GB_S, 100 / 8 / 8 * GB_S, 8, _PCIE4, recalled=True),
    "RTX 4090": Network(32 * GB_S, 100 / 8 / 8 * GB_S, 8, _PCIE4, recalled=True),
    "L40S": Network(32 * GB_S, 100 / 8 / 8 * GB_S, 8, _PCIE4, recalled=True),
    "L4": Network(32 * GB_S, 100 / 8 / 8 * GB_S, 8, _PCIE4, recalled=True),
    "MI300X": Network(448 * GB_S, 400 / 8 * GB_S, 8, "Infinity Fabric at 896 GB/s both ways to the other 7 GPUs; "
                      "a 400 Gb/s port per GPU", recalled=True),
    "TPU v4": Network(300 * GB_S, 100 / 8 * GB_S / 4, 4096, "ICI: 6 links of 50 GB/s each way a chip (400 Gb/s, "
                      "glennklockwood.com/garden/processors/TPUv4) in a 3D torus of 4,096 chips; DCN between pods "
                      "assumed at 25 Gb/s a chip", recalled=True),
    "TPU v5e": Network(200 * GB_S, 50 / 8 * GB_S, 256, "ICI at 400 GB/s both ways in a pod of 256 chips; DCN "
                       "between pods", recalled=True),
    "TPU v5p": Network(600 * GB_S, 50 / 8 * GB_S, 8960, "ICI at 1,200 GB/s both ways in a pod of 8,960 chips; DCN "
                       "at 50 Gb/s a chip"),
}


NETWORK.update(newer_gpus.NETWORK)
CATALOG = {row.name: replace(row, network=NETWORK[row.name]) for row in _rows() + newer_gpus.rows()}


# Cloud prices in US dollars per GPU-hour. The material gives ranges (seed 000: "A100 云服务：~$2-3/小时", "H100 云服务：
# ~$3-5/小时", and about $3 an hour for a V100 in its GPT-3 answer); the workbook takes the middle of each. The H200 and
# B200 figures are the workbook's own assumptions, not quotes. Other GPUs have none: give a price.
PRICE_PER_GPU_HOUR = {
    "A100 80GB": (2.5, N_("the middle of the material's ~$2-3 per hour (seed 000)")),
    "H100 SXM": (4.0, N_("the middle of the material's ~$3-5 per hour (seed 000)")),
    "V100": (3.0, N_("the material's about $3 per hour (seed 000, its GPT-3 cost answer)")),
    "H200": (4.5, N_("assumed by the workbook, not a quote")),
    "B200": (6.0, N_("assumed by the workbook, not a quote")),
}


def gpu(name) -> GPU:
    """A GPU from the catalog by name, in any case and spacing ("h100 sxm", "A100-80GB", "tpu-v5e"); a GPU passes
    through; an unknown name gets the close names suggested."""
    if isinstance(name, GPU):
        return name
    return lookup("gpu", name, CATALOG)


def price_per_gpu_hour(name) -> float:
    """The workbook's price of one GPU-hour of a GPU (``PRICE_PER_GPU_HOUR``, with where each figure comes from)."""
    return _listed_price(name)


def _listed_price(name) -> float:
    g = gpu(name)
    if g.name not in PRICE_PER_GPU_HOUR:
        raise InputError("price_per_gpu_hour", _("no price per GPU-hour is listed for {gpu} (only for {listed}): "
                                                 "give one.").format(gpu=repr(g.name),
                                                                     listed=", ".join(PRICE_PER_GPU_HOUR)))
    return PRICE_PER_GPU_HOUR[g.name][0]


def gpu_price(name, price_per_gpu_hour=None) -> tuple:
    """The price of a GPU-hour a plan uses, and whether it is the GPU's listed one: (the price given, checked,
    False), or without one (the listed price, True), or (None, False) for a GPU with no listed price and none given:
    its hours and latency need no price, only its cost does. Every plan that prices takes it from here."""
    if price_per_gpu_hour is not None:
        gpu(name)
        return check_number("price_per_gpu_hour", price_per_gpu_hour, low=0), False
    if gpu(name).name not in PRICE_PER_GPU_HOUR:
        return None, False
    return _listed_price(name), True

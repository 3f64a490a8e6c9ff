"""The accelerators of 2024-2026 in the catalog (``hardware``): Blackwell (B300, and the GB200 and GB300 NVL72 racks,
one row per GPU), Hopper on PCIe cards (H100 NVL, H200 NVL), AMD's MI325X and MI355X, Google's TPU v6e (Trillium)
and TPU v7 (Ironwood), AWS Trainium2, Intel Gaudi 3, and the RTX 5090.

As in ``hardware``: every peak is dense (the note says where the source prints the 2:4-sparse figure, twice it),
memory is what the device exposes (``memory_source`` says where it was read, or that it was assumed), and
``recalled`` names the fields not found in a stored copy of the source. A row's ``network`` (``NETWORK``) gives its
scale-up domain: how many GPUs share NVLink, ICI, NeuronLink or Infinity Fabric (``gpus_per_node``), and the
bandwidth each way over it and over the network beyond it.
"""

from __future__ import annotations

from ..core.i18n import N_
from .accelerators import GB_S, GIB, GPU, MIB, TERA, Network, _smi

_NVL72 = N_("NVLink 5 ×72 (1.8 TB/s)")  # 72 GPUs in one NVLink domain


def rows() -> list:
    return [
        GPU("GB200 NVL72", bandwidth_bytes_per_s=8e12, bf16_flops_per_s=2500 * TERA, fp8_flops_per_s=5000 * TERA,
            fp4_flops_per_s=10_000 * TERA, tf32_flops_per_s=1250 * TERA, fp32_flops_per_s=80 * TERA,
            interconnect_bytes_per_s=1.8e12, interconnect=_NVL72,
            source=N_("NVIDIA GB200 NVL72 specifications, one Blackwell GPU of the rack: FP4 20, FP8 10, BF16 5, TF32 "
                      "2.5 PFLOPS (sparse), FP32 80 TFLOPS, 186 GB HBM3E at 8 TB/s; the rack: 1,440 PFLOPS FP4, "
                      "130 TB/s NVLink (as copied at "
                      "zdszero.github.io/Computer/Artificial_Intelligence/Hardware.html)"),
            note=N_("One GPU of the rack: 72 Blackwell GPUs and 36 Grace CPUs share one NVLink domain (1.8 TB/s a "
                    "GPU). 5,000 TFLOPS BF16 is the sparse figure."),
            label_bytes=186e9, **_smi(189_471, "NVIDIA GB200")),
        GPU("GB300 NVL72", bandwidth_bytes_per_s=8e12, bf16_flops_per_s=2500 * TERA, fp8_flops_per_s=5000 * TERA,
            fp4_flops_per_s=15_000 * TERA, tf32_flops_per_s=1250 * TERA, fp32_flops_per_s=80 * TERA,
            interconnect_bytes_per_s=1.8e12, interconnect=_NVL72,
            source=N_("NVIDIA GB300 NVL72 specifications: the rack 1,440 PFLOPS FP4 sparse and 1,080 dense, 720 FP8 "
                      "sparse, 20 TB HBM3e at 576 TB/s, 130 TB/s NVLink, a ConnectX-8 of 800 Gb/s a GPU (as quoted at "
                      "vendordeep.com/report/nvidia-launches-blackwell-ultra-gb300); one GPU, dense: FP4 15, FP8 5, "
                      "BF16 2.5, TF32 1.25 PFLOPS, FP32 80 TFLOPS, 279 GB at 8 TB/s "
                      "(verda.com/blog/gb300-nvl72-architecture)"),
            note=N_("One GPU of the rack: 72 Blackwell Ultra GPUs share one NVLink domain. 5,000 TFLOPS BF16 is the "
                    "sparse figure. FP4 is 1.5 times the GB200's; FP8 and BF16 are the same."),
            label_bytes=279e9, **_smi(284_208, "NVIDIA GB300")),
        GPU("B300", bandwidth_bytes_per_s=7.7e12, bf16_flops_per_s=2250 * TERA, fp8_flops_per_s=4500 * TERA,
            fp4_flops_per_s=13_500 * TERA, tf32_flops_per_s=1125 * TERA, fp32_flops_per_s=75 * TERA,
            interconnect_bytes_per_s=1.8e12, interconnect=N_("NVLink 5 (1.8 TB/s)"),
            source=N_("NVIDIA HGX B300 specifications for 8 GPUs: FP4 144 PFLOPS sparse and 108 dense, FP8 72, BF16 "
                      "36, TF32 18 PFLOPS sparse, FP32 600 TFLOPS, up to 2.3 TB, NVLink 1.8 TB/s a GPU (as copied at "
                      "fibermall.com/blog/?p=17161); 7.7 TB/s a GPU (verda.com/blog/gb300-nvl72-architecture)"),
            note=N_("One GPU of an 8-GPU HGX B300 (Blackwell Ultra, 1,100 W). 4,500 TFLOPS BF16 is the sparse figure. "
                    "Dense FP4 is NVIDIA's 108 PFLOPS over 8 GPUs; secondary pages give 13.1 (glennklockwood.com) and "
                    "14 (verda.com). FP64 is cut to about 1.25 TFLOPS."),
            label_bytes=288e9, recalled=("FP4", "bandwidth"), **_smi(275_040, "NVIDIA B300 SXM6 AC")),
        GPU("H100 NVL", bandwidth_bytes_per_s=3.9e12, bf16_flops_per_s=835.5 * TERA, fp8_flops_per_s=1670.5 * TERA,
            tf32_flops_per_s=417.5 * TERA, fp32_flops_per_s=60 * TERA, interconnect_bytes_per_s=600e9,
            interconnect=N_("NVLink pairs (600 GB/s)"),
            source=N_("NVIDIA H100 datasheet (H100 NVL): 94 GB HBM3 at 3.9 TB/s, BF16 1,671, FP8 3,341, TF32 835 "
                      "TFLOPS sparse, FP32 60 TFLOPS, NVLink 600 GB/s"),
            note=N_("The full H100 on a PCIe card of up to 400 W, paired by NVLink bridges. 1,671 TFLOPS BF16 is the "
                    "sparse figure."),
            label_bytes=94e9, recalled=("BF16", "FP8", "TF32", "FP32"), **_smi(95_830, "NVIDIA H100 NVL")),
        GPU("H200 NVL", bandwidth_bytes_per_s=4.8e12, bf16_flops_per_s=835.5 * TERA, fp8_flops_per_s=1670.5 * TERA,
            tf32_flops_per_s=417.5 * TERA, fp32_flops_per_s=60 * TERA, interconnect_bytes_per_s=900e9,
            interconnect=N_("NVLink 4-way (900 GB/s)"),
            source=N_("NVIDIA H200 datasheet (H200 NVL): 141 GB HBM3e at 4.8 TB/s, BF16 1,671, FP8 3,341, TF32 835 "
                      "TFLOPS sparse, FP32 60 TFLOPS, a 2- or 4-way NVLink bridge at 900 GB/s, up to 600 W"),
            note=N_("The H200 on a PCIe card: its memory, less compute than the SXM. 1,671 TFLOPS BF16 is the sparse "
                    "figure."),
            label_bytes=141e9, recalled=("BF16", "FP8", "TF32", "FP32", "interconnect"),
            **_smi(143_771, "NVIDIA H200 NVL")),
        GPU("MI325X", memory_bytes=256 * GIB, bandwidth_bytes_per_s=6.0e12, bf16_flops_per_s=1307.4 * TERA,
            fp8_flops_per_s=2614.9 * TERA, tf32_flops_per_s=653.7 * TERA, fp32_flops_per_s=163.4 * TERA,
            interconnect_bytes_per_s=896e9, interconnect=N_("Infinity Fabric 896 GB/s"),
            source=N_("AMD Instinct MI325X datasheet, as awesomeagents.ai/hardware/amd-mi325x gives it: 256 GB "
                      "HBM3E at 6 TB/s, FP8 2,614.9 (5,229.8 sparse), BF16 1,307.4, TF32 653.7, FP32 163.4 TFLOPS"),
            note=N_("The MI300X's compute with 256 GB of HBM3E; no FP4. 2,614.9 TFLOPS BF16 is the sparse figure."),
            label_bytes=256e9, recalled=("interconnect", N_("exposed memory")),
            memory_source=N_("assumed 256 GiB, as the MI300X's 192 GB exposes 192.0 GiB; the runtime's figure was not "
                             "found")),
        GPU("MI355X", memory_bytes=288 * GIB, bandwidth_bytes_per_s=8e12, bf16_flops_per_s=2516.6 * TERA,
            fp8_flops_per_s=5033.2 * TERA, fp4_flops_per_s=10_066.3 * TERA, tf32_flops_per_s=None,
            fp32_flops_per_s=157.3 * TERA, interconnect_bytes_per_s=1075.2e9,
            interconnect=N_("Infinity Fabric 1.1 TB/s"),
            source=N_("AMD Instinct MI355X datasheet: 288 GB HBM3E at 8 TB/s, 2.5 PFLOPS FP16, 5 FP8, 10 MXFP4 dense, "
                      "78.6 TFLOPS FP64 (as humeconsulting.co and boston.co.uk quote it); the exact peaks from 256 "
                      "CUs at 2.4 GHz and 8,192 FP8 FLOPs a CU a clock (AMD at ISSCC 2026, "
                      "world-today-news.com/?p=7253162)"),
            note=N_("CDNA 4: FP4 and FP6 (MX formats) at twice FP8, and no TF32. 5,033.2 TFLOPS BF16 is the sparse "
                    "figure. Infinity Fabric: 7 links of 153.6 GB/s."),
            label_bytes=288e9, recalled=("FP32", "interconnect", N_("exposed memory")),
            memory_source=N_("assumed 288 GiB, as the MI300X's 192 GB exposes 192.0 GiB; the runtime's figure was not "
                             "found")),
        GPU("TPU v6e", memory_bytes=32 * GIB, bandwidth_bytes_per_s=1638e9, bf16_flops_per_s=918 * TERA,
            fp8_flops_per_s=None, tf32_flops_per_s=None, fp32_flops_per_s=None, interconnect_bytes_per_s=800e9,
            interconnect=N_("ICI (800 GB/s)"),
            source=N_("Cloud TPU docs, TPU v6e (docs.cloud.google.com/tpu/docs/v6e) and the table of TPU7x "
                      "(docs.cloud.google.com/tpu/docs/tpu7x)"),
            note=N_("Trillium. One chip; a pod is 256 chips in a 2D torus; ICI 800 GB/s both directions (4 ports); DCN "
                    "100 Gb/s a chip; INT8 1,836 TOPS. The TPU7x table lists FP8 at 918, the BF16 figure, left out "
                    "here as for the v5p."),
            label_bytes=32e9, recalled=(N_("exposed memory"),),
            memory_source=N_("32 GiB, as the TPU7x docs head the column ('HBM capacity per chip (GiB)'); the v6e page "
                             "says 32 GB; the runtime's figure was not found")),
        GPU("TPU v7", memory_bytes=192 * GIB, bandwidth_bytes_per_s=7380e9, bf16_flops_per_s=2307 * TERA,
            fp8_flops_per_s=4614 * TERA, tf32_flops_per_s=None, fp32_flops_per_s=None, interconnect_bytes_per_s=1200e9,
            interconnect=N_("ICI (1,200 GB/s)"),
            source=N_("Cloud TPU docs, TPU7x (Ironwood) (docs.cloud.google.com/tpu/docs/tpu7x)"),
            note=N_("Ironwood, TPU7x in Google Cloud: one chip of two TensorCores; a pod is 9,216 chips in a 3D torus; "
                    "ICI 1,200 GB/s both directions; DCN 100 Gb/s a chip. Its FP8 peak is twice its BF16."),
            label_bytes=192e9, recalled=(N_("exposed memory"),),
            memory_source=N_("192 GiB, as the docs head the column ('HBM capacity per chip (GiB)'); the runtime's "
                             "figure was not found")),
        GPU("Trainium2", memory_bytes=96 * GIB, bandwidth_bytes_per_s=2.9e12, bf16_flops_per_s=667 * TERA,
            fp8_flops_per_s=1299 * TERA, tf32_flops_per_s=667 * TERA, fp32_flops_per_s=181 * TERA,
            interconnect_bytes_per_s=1.28e12, interconnect=N_("NeuronLink 3 (1.28 TB/s)"),
            source=N_("AWS Neuron docs, Trainium2 architecture (github.com/aws-neuron/aws-neuron-sdk, "
                      "about-neuron/arch/neuron-hardware/trainium2.rst)"),
            note=N_("One chip of eight NeuronCore-v3. 2,563 TFLOPS is its sparse figure for FP8, FP16, BF16 and TF32 "
                    "alike. A trn2.48xlarge holds 16 chips; a Trn2 UltraServer joins 64 on NeuronLink."),
            label_bytes=96 * GIB, recalled=(N_("exposed memory"),),
            memory_source=N_("96 GiB, as the Neuron docs state it; the runtime's figure was not found")),
        GPU("Gaudi 3", memory_bytes=131_072 * MIB, bandwidth_bytes_per_s=3.7e12, bf16_flops_per_s=1835 * TERA,
            fp8_flops_per_s=1835 * TERA, tf32_flops_per_s=None, fp32_flops_per_s=None, interconnect_bytes_per_s=1.2e12,
            interconnect=N_("24 × 200 GbE RoCE"),
            source=N_("Intel Gaudi 3 HL-325L product brief: 1,835 TFLOPS BF16 and FP8 (matrix engines), 128 GB HBM2e "
                      "at 3.7 TB/s, 24 ports of 200 GbE (as yobitel.com/knowledge-base/intel-gaudi-3 and "
                      "theregister.com, 2024/04/09, quote it)"),
            note=N_("FP8 runs at the BF16 rate. 21 of the 24 Ethernet ports join the 8 cards of a server all to all, "
                    "3 leave it. One secondary table gives 1,678 TFLOPS."),
            label_bytes=128e9, recalled=("interconnect",),
            memory_source=N_("hl-smi (Gaudi's nvidia-smi): HL-325L, 131,072 MiB, in public code that parses its "
                             "output")),
        GPU("RTX 5090", bandwidth_bytes_per_s=1792e9, bf16_flops_per_s=209.5 * TERA, fp8_flops_per_s=419 * TERA,
            fp4_flops_per_s=1676 * TERA, tf32_flops_per_s=104.8 * TERA, fp32_flops_per_s=104.8 * TERA,
            interconnect_bytes_per_s=None, interconnect=N_("none (PCIe 5.0 only)"),
            source=N_("NVIDIA RTX Blackwell GPU architecture whitepaper, as Linux Format (May 2025, on pocketmags.com) "
                      "and spheron.network quote it: 21,760 CUDA cores at 2,407 MHz, 32 GB GDDR7 at 1,792 GB/s, "
                      "838 TFLOPS FP16 and 3,352 TOPS FP4, both sparse"),
            note=N_("104.8 TFLOPS is the FP32 CUDA-core peak (21,760 cores × 2 × 2.407 GHz). The sparse 838 FP16 and "
                    "3,352 FP4 are 419 and 1,676 dense; with FP32 accumulate a GeForce card runs BF16 and FP8 at half "
                    "rate, as the RTX 4090 does: 209.5 and 419."),
            label_bytes=32e9, recalled=("BF16", "FP8", "TF32"),
            **_smi(32_607, "NVIDIA GeForce RTX 5090")),
    ]


_NVL72_NET = "NVLink 5 at 1.8 TB/s both ways among all 72 GPUs of the rack (130 TB/s in all)"
NETWORK = {
    "GB200 NVL72": Network(900 * GB_S, 400 / 8 * GB_S, 72, f"GB200 NVL72: {_NVL72_NET}; a 400 Gb/s ConnectX-7 "
                           "port per GPU"),
    "GB300 NVL72": Network(900 * GB_S, 800 / 8 * GB_S, 72, f"GB300 NVL72: {_NVL72_NET}; a ConnectX-8 SuperNIC of "
                           "800 Gb/s per GPU"),
    "B300": Network(900 * GB_S, 800 / 8 * GB_S, 8, "HGX B300: NVLink 5 at 1.8 TB/s both ways among 8 GPUs; a "
                    "ConnectX-8 port of 800 Gb/s per GPU"),
    "H100 NVL": Network(64 * GB_S, 400 / 8 * GB_S, 8, "NVLink bridges join pairs only: PCIe 5.0 x16, 64 GB/s each "
                        "way; a 400 Gb/s port per GPU assumed", recalled=True),
    "H200 NVL": Network(450 * GB_S, 400 / 8 * GB_S, 4, "a 4-way NVLink bridge at 900 GB/s both ways joins 4 cards; "
                        "beyond them (the other 4 cards of a server are over PCIe 5.0) a 400 Gb/s port per GPU "
                        "assumed", recalled=True),
    "MI325X": Network(448 * GB_S, 400 / 8 * GB_S, 8, "Infinity Fabric at 896 GB/s both ways to the other 7 GPUs; "
                      "a 400 Gb/s port per GPU", recalled=True),
    "MI355X": Network(537.6 * GB_S, 400 / 8 * GB_S, 8, "Infinity Fabric: 7 links of 153.6 GB/s, 1,075 GB/s both "
                      "ways, to the other 7 GPUs; a 400 Gb/s port per GPU", recalled=True),
    "TPU v6e": Network(400 * GB_S, 100 / 8 * GB_S, 256, "ICI at 800 GB/s both ways in a pod of 256 chips (2D "
                       "torus); DCN at 100 Gb/s a chip"),
    "TPU v7": Network(600 * GB_S, 100 / 8 * GB_S, 9216, "ICI at 1,200 GB/s both ways in a pod of 9,216 chips (3D "
                      "torus); DCN at 100 Gb/s a chip"),
    "Trainium2": Network(640 * GB_S, 200 / 8 * GB_S, 64, "NeuronLink-v3 at 1.28 TB/s a chip (taken as both ways) in "
                         "a Trn2 UltraServer of 64 chips; EFA at 3.2 Tb/s for the 16 chips of a trn2.48xlarge "
                         "(200 Gb/s a chip)", recalled=True),
    "Gaudi 3": Network(525 * GB_S, 600 / 8 * GB_S, 8, "21 of the 24 ports of 200 GbE join the 8 cards of a server "
                       "all to all (525 GB/s each way); 3 ports (600 Gb/s) leave it", recalled=True),
    "RTX 5090": Network(64 * GB_S, 100 / 8 / 8 * GB_S, 8, "no NVLink: PCIe 5.0 x16, 64 GB/s each way; a 100 Gb/s "
                        "port per node assumed", recalled=True),
}

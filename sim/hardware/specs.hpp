// Resolved hardware descriptions: a GPU, a node (its NVLink domain and NICs) and a fabric.
//
// These are immutable after scenario resolution (sim/config). Every field comes from a catalog
// preset in models/ (gpus/, nodes/, fabrics/) with its unit and source, or from an override.
#pragma once

#include <string>
#include <vector>

#include "sim/units/quantity.hpp"

namespace fleetsim {

// One measured GEMM: shape and throughput (gemm_m_curve; sim/step/tp_overlap.hpp).
struct GemmMPoint {
  double m = 0, n = 0, k = 0, tflops = 0;
};

struct GpuSpec {
  std::string name;
  Bytes memory;                        // HBM capacity
  BytesPerSecond hbm_bandwidth;        // datasheet peak
  FlopsPerSecond peak_bf16;            // dense BF16/FP16 tensor-core peak
  FlopsPerSecond peak_fp8;             // dense FP8 peak (0 when the GPU has none)
  int sm_count = 0;                    // streaming multiprocessors: wave quantization of GEMMs
  Watts tdp;                           // board power limit
  Watts idle_power;                    // power when idle (restarts, waiting)
  // Calibration (physical, fitted on data separate from validation; see scripts/calibrate).
  double gemm_efficiency = 0.8;        // fraction of peak a large, well-shaped GEMM reaches
  double gemm_efficiency_fp8 = 0.0;    // the same for FP8 GEMMs, fraction of peak_fp8 (0 = not calibrated)
  // FP8 GEMM with blockwise scales (1 x 128 / 128 x 128, DeepSeek-V3) over the per-tensor-scaled
  // one, same shape (0 = not calibrated; sim/step/fp8.hpp).
  double fp8_blockwise_gemm_ratio = 0.0;
  Flops gemm_half_efficiency_work;     // GEMM size at which efficiency is half its maximum
  double attention_efficiency = 0.6;   // fused (flash) attention, fraction of peak
  double hbm_efficiency = 0.8;         // achievable fraction of HBM bandwidth
  // Achieved fraction of HBM bandwidth of the unfused attention core's s x s kernels (batched
  // QK^T / AV GEMMs, masked softmax, dropout; Megatron-LM without flash attention); 0 = the same
  // as hbm_efficiency (mechanism off). Fitted on Korthikanti et al. 2022 Table 4 (A100).
  double unfused_attention_hbm_efficiency = 0.0;
  Seconds kernel_launch_overhead;      // per kernel, not hidden by the stream
  Bytes usable_memory_reserve;         // CUDA context, allocator fragmentation, NCCL buffers
  // Thermal: junction temperature = inlet + power * thermal_resistance.
  KelvinPerWatt thermal_resistance;
  Celsius throttle_temperature;        // clocks begin to drop above this junction temperature
  double throttle_slope_per_kelvin = 0.0;  // relative clock loss per kelvin above the threshold
  // Measured GEMM throughput against M at a few K (preset key gemm_m_curve: a file under
  // data/supplement): the efficiency of TP overlap's chunk GEMMs (sim/step/tp_overlap.hpp).
  // Empty: chunks cost the whole GEMM's rate.
  std::vector<GemmMPoint> gemm_m_curve;
  // Share of a GEMM-overlapped TP collective that stays exposed however it is chunked (the
  // collective slowed by the GEMM's memory traffic, chunk synchronization); measured per GPU
  // generation (sim/step/tp_overlap.hpp). 0: only the chunk pipeline's own exposure.
  double tp_overlap_exposed_share = 0.0;
};

struct NodeSpec {
  std::string name;
  int gpus_per_node = 8;
  int nvlink_domain_gpus = 8;          // GPUs sharing one NVSwitch domain (72 for NVL72)
  BytesPerSecond nvlink_bandwidth;     // per GPU, per direction
  Seconds nvlink_latency;              // per collective step inside the domain
  double nvlink_efficiency = 0.8;      // achievable bus bandwidth / link rate (nccl-tests)
  bool nvlink_sharp = false;           // NVLS: all-reduce reduced in the NVSwitch (H100 and later)
  int nics_per_node = 8;
  BytesPerSecond nic_bandwidth;        // per NIC, per direction
  Watts host_power_idle;               // CPUs, DRAM, NICs, NVSwitch: everything but the GPUs
  Watts host_power_max;
  Watts fan_power_max;                 // server fans at full load when air-cooled
  bool liquid_cooled_only = false;     // added (issue 26): no air-cooled variant (NVL72 racks)
};

enum class FabricTopology { RailOptimized, FatTree };

struct FabricSpec {
  std::string name;
  FabricTopology topology = FabricTopology::RailOptimized;
  int tiers = 3;                       // 2 or 3 switch tiers (Clos)
  int switch_radix = 64;               // ports per switch
  int gpus_per_leaf = 32;              // endpoints under one leaf (ToR/rail) switch
  double oversubscription = 1.0;       // leaf-to-spine downlink:uplink ratio (2 means 2:1)
  int pod_gpus = 0;                    // GPUs per pod with full bisection inside; 0 = one pod
  double pod_oversubscription = 1.0;   // between pods (Llama 3: 7 for 1:7)
  BytesPerSecond link_bandwidth;       // per port, per direction
  Seconds hop_latency;                 // per switch hop
  double efficiency = 0.9;             // achievable fraction of link rate for large messages
  Watts switch_power;                  // per switch
};

}  // namespace fleetsim

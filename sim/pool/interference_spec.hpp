// Inputs of the multi-job fabric interference model of the pool (`pool.interference:`, issue 28):
// how running jobs' traffic is routed and shared, the traffic of the job streams, and explicit jobs
// with fixed placements (a published pairwise experiment). Keys, units and defaults:
// sim/config/pool_interference.cpp; the model: sim/pool/interference.hpp and sim/pool/README.md.
#pragma once

#include <string>
#include <vector>

#include "sim/workload/specs.hpp"

namespace fleetsim {

enum class FabricRouting {
  Ecmp,      // every flow hashed onto one cable of a switch bundle (a seeded random draw per flow)
  Adaptive,  // traffic spread evenly over a bundle's cables (adaptive routing, packet spraying)
};
enum class CommOverlap {
  Random,   // other jobs communicate at a random phase: each counts with its communication share
  Aligned,  // every job's communication overlaps every other's (worst case; the SimGrid check's setting)
};
enum class LinkSharing {
  Fair,          // max-min fair per flow
  CommPriority,  // jobs whose communication blocks the most GPU time first (Crux-like, SIGCOMM'24)
};
enum class TrafficPattern {
  Ring,      // data-parallel ring over the job's nodes in node order: one flow per NIC to the next node
  AllToAll,  // expert-parallel all-to-all: every node to every other node, evenly
};

// A job with a fixed placement: whole nodes, started at `start_s`, running `duration_s` alone.
struct ExplicitJob {
  std::string name;
  int gpus = 0;
  std::vector<int> nodes;        // pool node indices (GPUs node*G .. node*G + G-1)
  double start_s = 0.0;
  double duration_s = 0.0;       // run time alone
  double compute_time_s = 0.0;   // exposed compute per iteration (everything that is not inter-node communication)
  double comm_bytes = 0.0;       // bytes every NIC of the job sends across nodes per iteration
  TrafficPattern traffic = TrafficPattern::Ring;
};

// A representative model for the stream's training jobs of at least `min_gpus` GPUs (dense: ring
// traffic unless its layout sends expert-parallel all-to-all across nodes; moe: the jobs drawn
// with all_to_all_share). The step model times it once per job size (sim/pool/traffic.hpp).
struct StreamModel {
  int min_gpus = 0;
  bool moe = false;
  std::string name;              // catalog preset (models/workloads/<name>.yaml)
  ModelSpec model;
};

struct InterferenceSpec {
  bool enabled = false;
  FabricRouting routing = FabricRouting::Ecmp;
  CommOverlap overlap = CommOverlap::Random;
  LinkSharing sharing = LinkSharing::Fair;
  // Stream jobs' traffic: from the step model of a representative model per job size (default), or,
  // when the scenario sets comm_share, the fixed share (the explicit value wins; issue 28's first
  // format, kept so that existing scenarios reproduce).
  bool traffic_from_step = true;
  double comm_share = 0.2;        // override: exposed inter-node communication / iteration time, alone
  double all_to_all_share = 0.0;  // stream jobs: share running the MoE representative (override: all-to-all traffic)
  std::vector<StreamModel> stream_models;  // by min_gpus ascending; dense and moe rows
  std::vector<ExplicitJob> jobs;
};

}  // namespace fleetsim

// Time of one pass over some layers for one microbatch on one GPU, by kind (the parts the op
// list's time model sums into, op_time.hpp; the schedule, the breakdown and the timeline read it).
#pragma once

#include "sim/units/quantity.hpp"

namespace fleetsim::step {

struct PhaseTime {
  Seconds math;      // tensor-core GEMMs and attention kernels
  Seconds memory;    // memory-bound kernels and kernel launch overhead
  Seconds tp_comm;   // tensor-parallel collectives (on the critical path)
  Seconds cp_comm;   // context-parallel K/V exchange not hidden behind attention
  Seconds ep_comm;   // expert-parallel all-to-all (dispatch and combine)
  Seconds cp_hidden; // context-parallel exchange hidden behind attention
  Seconds tp_hidden; // tensor-parallel collectives hidden behind GEMMs (tp_comm_overlap)
  Seconds wgrad;     // of `math` in a backward: the weight-gradient GEMMs (DualPipe's W)
  [[nodiscard]] Seconds compute() const { return math + memory; }
  [[nodiscard]] Seconds total() const { return math + memory + tp_comm + cp_comm + ep_comm; }
  PhaseTime& operator+=(const PhaseTime& o) {
    math += o.math; memory += o.memory; tp_comm += o.tp_comm; cp_comm += o.cp_comm;
    ep_comm += o.ep_comm; cp_hidden += o.cp_hidden; tp_hidden += o.tp_hidden; wgrad += o.wgrad;
    return *this;
  }
  [[nodiscard]] PhaseTime scaled(double k) const {
    PhaseTime p;
    p.math = math * k; p.memory = memory * k; p.tp_comm = tp_comm * k; p.cp_comm = cp_comm * k;
    p.ep_comm = ep_comm * k; p.cp_hidden = cp_hidden * k; p.tp_hidden = tp_hidden * k;
    p.wgrad = wgrad * k;
    return p;
  }
};

}  // namespace fleetsim::step

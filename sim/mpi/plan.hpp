// `fleetsim plan` on MPI ranks: rank r evaluates the system x GPU-count groups g with
// g % ranks == r (each group's layout search and its designs stay on one rank, so no search is
// repeated), and rank 0 gathers every design into its slot. Each design is evaluated on its own
// with the plan's seed, and doubles travel in round-trip form, so the merged evaluation equals the
// one-process one bit for bit.
#pragma once

#include "sim/plan/evaluate.hpp"

namespace fleetsim::mpi {

// evaluate_plan over every rank of the world (a collective). The whole evaluation on rank 0; the
// other ranks return their part, which the caller discards.
plan::Evaluation evaluate_plan_on_ranks(const plan::PlanSpec& spec, plan::EvaluateOptions options);

}  // namespace fleetsim::mpi

// What the power timeline (sim/facility/power_dynamics.hpp) needs from the step and run models:
// the activity of each pipeline stage over one iteration, from the step model's own schedule
// (sim/step/trace.hpp), and the job's states over the run, from replication 0's timeline.
#pragma once

#include <vector>

#include "sim/facility/power_dynamics.hpp"
#include "sim/run/run_model.hpp"
#include "sim/step/trace.hpp"

namespace fleetsim {

// One StageActivity per pipeline rank (the schedule's representative GPU stands for
// gpus_per_rank GPUs). Each rank's compute stream is painted into cells of at most 1 ms, parents
// before their parts (the schedule's order), so the deepest span decides: compute, recompute,
// optimizer and SM contention at facility.gpu_activity_compute; TP/CP/EP/PP communication,
// exposed DP communication, bubbles and waiting at facility.gpu_activity_communication. Time no
// span covers is waiting (communication level). The DP streams overlap the compute stream and
// add nothing here.
[[nodiscard]] std::vector<facility::StageActivity> stage_activities(const step::IterationTimeline& t,
                                                                    const FacilitySpec& f);

// Replication 0's timeline as job states: training (and degraded) -> Training, checkpoint_write
// -> CheckpointStall, every outage phase (detection, diagnosis, rescheduling, waiting for spares,
// restart, planned maintenance) -> Stopped. The rolled-back compute (lost_work) is on its own
// track and skipped.
[[nodiscard]] std::vector<facility::JobStateSpan> job_states(const ReplicationResult& rep);

}  // namespace fleetsim

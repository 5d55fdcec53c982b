// The training run of replication 0 as a Chrome trace-event / Perfetto JSON (`fleetsim run
// --trace`): the job's state on a time axis (training, checkpoint writes, and each outage phase:
// detection, diagnosis, waiting for spares, rescheduling, restart with checkpoint load, planned
// maintenance, named with its cause), the compute each interruption rolled back, and instants
// for interruptions and durable checkpoints. From the run engine's own timeline
// (RunInputs::record_timeline), not re-derived.
#pragma once

#include "sim/pipeline/run_pipeline.hpp"
#include "sim/results/trace_json.hpp"

namespace fleetsim {

class ResultsFile;

// Throws std::logic_error when replication 0 has no timeline (record_timeline was off).
void add_run_trace(const Scenario& s, const PipelineResult& r, TraceWriter& out);

// The iteration schedule (sim/step/trace.hpp) as columns of the results file's
// `iteration_schedule` table: the report draws its Gantt chart from it.
void write_iteration_schedule(const Scenario& s, ResultsFile& f);

// facility.power_timeline: the power timeline's series as /power/steady (first minute of steady
// training at full resolution), /power/window (the sampled window, 1 s averages), /power/run
// (the meter at each job state change) and /power/spectrum (meter, steady training).
void write_power_tables(const facility::PowerDynamicsResult& p, ResultsFile& f);

}  // namespace fleetsim

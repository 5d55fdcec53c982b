// Stated limits on what a scenario may ask for, checked at load (sim/config/resolve.cpp,
// scenario_builder.cpp) and when a run is prepared (sim/run/prepare.cpp), so that no input can
// wrap an integer, overflow the run model's microsecond clock, or ask for unbounded memory or work. Each limit is far above any real training run and is printed in the
// message that refuses it.
#pragma once

#include <climits>

namespace fleetsim::limits {

// Every integer key is held in an int by the models.
inline constexpr long long kMaxInteger = INT_MAX;

// Any time value in a scenario (durations, intervals, ages): 100 years. The run model counts
// microseconds in int64 (292,000 years), so sums of a few such times cannot overflow.
inline constexpr double kMaxTimeSeconds = 100.0 * 365.0 * 86400.0;
inline constexpr const char* kMaxTimeText = "100 yr";

// run.duration: 20 years, the horizon the run model also uses for a token target.
inline constexpr double kMaxRunSeconds = 20.0 * 365.0 * 86400.0;
inline constexpr const char* kMaxRunText = "20 yr";

// workload.training.train_tokens, also as an importer computes it (iterations x batch x sequence):
// 1e18, about 65,000 times Llama 3's 15.6T (and far below the 9.2e18 a long long holds).
inline constexpr double kMaxTrainTokens = 1e18;
inline constexpr const char* kMaxTrainTokensText = "1e18 tokens";

// Replications of one run (1,000 of the default scenario take about a second).
inline constexpr long long kMaxReplications = 100000;

// GPUs in one job: 2^20, eight times the largest cluster fleetsim is validated at (131,072).
inline constexpr long long kMaxGpus = 1 << 20;

// Facility time series: run.duration / facility.time_step samples (54 d at 1 h is 1,296).
inline constexpr double kMaxFacilitySteps = 1e6;

// Expected interruptions (failures, planned maintenance, fail-slow events). Per replication: the
// first replication logs each one (about 40 bytes) for the results file. Over all replications:
// the run model simulates about 1.5 million per second on one core, so 1e8 is about a minute.
// (131,072 GPUs for 90 days: about 10,000 per replication.)
inline constexpr double kMaxEventsPerReplication = 1e6;
inline constexpr double kMaxExpectedEvents = 1e8;

// failures.rate_scale: the what-if multiplier on every component rate.
inline constexpr double kMaxRateScale = 1e4;

// Points of one sweep: each is a child process and a results file in one folder (a grid is
// expanded in memory before the first point runs).
inline constexpr double kMaxSweepPoints = 100000;

// Designs of one plan (the product of its candidate lists, `fleetsim plan`): each design is a
// record of a few kB held until the report (and a row of the JSON and HDF5 tables); 30,000 take
// under a minute on 2 cores (scripts/bench plan), so 100,000 is a few minutes and ~0.5 GB.
inline constexpr double kMaxPlanDesigns = 100000;

// The pool simulator (sim/pool). A replication generates its jobs up front (about 160 bytes each
// while it runs, 8 kept per job for the delay and slowdown statistics) and samples its time series
// every pool.inference_interval (56 bytes kept per sample). The 100k-GPU benchmark pool submits
// about a million jobs in 30 days; its engine handles a few hundred thousand jobs per second.
inline constexpr double kMaxPoolJobsPerReplication = 1e7;
inline constexpr double kMaxPoolJobs = 1e8;             // over all replications
inline constexpr double kMaxPoolSamplesPerReplication = 1e6;
inline constexpr double kMaxPoolSamples = 1e7;          // over all replications
inline constexpr double kMaxPoolPasses = 1e7;           // backfill passes per replication
inline constexpr double kMaxPoolServices = 1e5;         // inference services, summed over groups
inline constexpr double kMaxPoolServiceTicks = 1e9;     // services x demand evaluations per replication
inline constexpr double kMaxPoolFailures = 1e7;         // expected node failures per replication
// Pool GPUs for placement same-switch with the interference model (sim/pool/README.md measures
// its cost; config/pool_builder.cpp refuses a larger pool naming both keys).
inline constexpr int kMaxSameSwitchInterferenceGpus = 16384;

}  // namespace fleetsim::limits

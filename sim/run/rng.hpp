// Random streams of the run model: one independent stream per (seed, replication, component).
//
// Every random draw of a replication comes from a stream named by what it drives (failure
// arrivals, which component failed, repair times, ...), so results do not depend on the order in
// which replications run or on the thread count (STYLE.md, habit 7), and changing one process
// (say, adding fail-slow events) leaves the draws of the others untouched (common random numbers
// across a sweep). Generator: xoshiro256** (Blackman & Vigna 2018), seeded through splitmix64.
#pragma once

#include <cmath>
#include <cstdint>

namespace fleetsim::run {

// What a stream drives. Weibull classes use kWeibullBase + class index.
enum class Stream : std::uint64_t {
  FailureArrivals = 1, FailurePick = 2, Planned = 3, FailSlow = 4, Repair = 5, Stragglers = 6,
  Frailty = 7,  // lemon_model per_node: the nodes' frailty draws, which node failed, replacements
  WeibullBase = 100,
  // The scenario's declared uncertain inputs (issue 25, sim/uncertainty/inputs.hpp): input k of
  // replication (or step draw) i from (seed, i, DeclaredInputBase + k).
  DeclaredInputBase = 1000000,
};

inline std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

class Rng {
 public:
  Rng(std::uint64_t seed, std::uint64_t replication, std::uint64_t component) {
    std::uint64_t x = seed;
    x = splitmix64(x) ^ (replication * 0xD1B54A32D192ED03ULL);
    x = splitmix64(x) ^ (component * 0xABC98388FB8FAC03ULL);
    for (auto& w : s_) w = splitmix64(x);
  }
  Rng(std::uint64_t seed, std::uint64_t replication, Stream component)
      : Rng(seed, replication, static_cast<std::uint64_t>(component)) {}

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0]; s_[3] ^= s_[1]; s_[1] ^= s_[2]; s_[0] ^= s_[3];
    s_[2] ^= t; s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform on (0, 1): never 0, so -log(u) is finite.
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
  // Exponential with the given mean.
  double exponential(double mean) { return -mean * std::log(uniform()); }
  // Standard normal (Box-Muller; one value per call keeps the stream stateless).
  double normal() {
    const double u1 = uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  // Lognormal with the given median and sigma of ln(x).
  double lognormal(double median, double sigma) { return median * std::exp(sigma * normal()); }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace fleetsim::run

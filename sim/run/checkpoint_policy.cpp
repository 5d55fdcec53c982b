#include "sim/run/checkpoint_policy.hpp"

#include <cmath>

#include "sim/core/error.hpp"

namespace fleetsim::run {

Seconds young_interval(Seconds dump, Seconds mtti) {
  return Seconds(std::sqrt(2.0 * dump.si() * mtti.si()));
}

Seconds daly_interval(Seconds dump, Seconds mtti) {
  const double d = dump.si(), m = mtti.si();
  if (d >= 2.0 * m) return mtti;
  const double x = d / (2.0 * m);
  return Seconds(std::sqrt(2.0 * d * m) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - d);
}

Seconds daly_wallclock(Seconds solve, Seconds interval, Seconds dump, Seconds restart, Seconds mtti) {
  const double m = mtti.si();
  return Seconds(m * std::exp(restart.si() / m) * std::expm1((interval.si() + dump.si()) / m) *
                 solve.si() / interval.si());
}

CheckpointPlan plan_checkpoints(const CheckpointSpec& spec, Bytes size, Seconds mtti) {
  if (size.si() < 0) throw ConfigError("", "checkpoint", "checkpoint size must not be negative");
  auto over = [&](BytesPerSecond bw, const char* key) {
    if (size.si() == 0) return Seconds(0.0);
    if (bw.si() <= 0)
      throw ConfigError("", std::string("checkpoint.") + key,
                        "must be a positive bandwidth such as '2 TB/s' when the checkpoint has a size");
    return size / bw;
  };
  CheckpointPlan p;
  const Seconds write = over(spec.storage_bandwidth, "storage_bandwidth");
  p.load = over(spec.load_bandwidth, "load_bandwidth");
  p.sync_stall = spec.write_time + write;
  p.stall = spec.async ? spec.write_time : p.sync_stall;
  p.persist = spec.async ? write : Seconds(0.0);
  if (spec.interval_kind == CheckpointIntervalKind::Fixed) {
    if (spec.interval.si() <= 0)
      throw ConfigError("", "checkpoint.interval", "must be a positive time such as '30 min' or 'daly'");
    p.interval = spec.interval;
  } else {
    // A zero stall would make Daly's interval zero: keep at least one second of compute.
    p.interval = max(daly_interval(p.stall, mtti), Seconds(1.0));
  }
  p.interval = max(p.interval, p.persist);
  return p;
}

}  // namespace fleetsim::run

// libFuzzer harness: the unit parser. The first byte picks the expected dimension and whether
// token suffixes apply; the rest is the text. Bad text must end in UnitError; a parsed value must
// be finite and format back without a crash.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "sim/units/parse.hpp"

namespace {

const fleetsim::units::DimVec kDims[] = {
    fleetsim::units::dim_of<fleetsim::Seconds>(),        fleetsim::units::dim_of<fleetsim::Bytes>(),
    fleetsim::units::dim_of<fleetsim::BytesPerSecond>(), fleetsim::units::dim_of<fleetsim::FlopsPerSecond>(),
    fleetsim::units::dim_of<fleetsim::Watts>(),          fleetsim::units::dim_of<fleetsim::Joules>(),
    fleetsim::units::dim_of<fleetsim::Tokens>(),         fleetsim::units::dim_of<fleetsim::PerSecond>(),
    fleetsim::units::DimVec{},
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto& dim = kDims[data[0] % (sizeof kDims / sizeof kDims[0])];
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  using fleetsim::units::UnitError;
  try {
    const double v = fleetsim::units::parse_si(text, dim);
    if (!std::isfinite(v)) std::abort();  // the parser promises finite values
    (void)fleetsim::units::format(v, dim);
  } catch (const UnitError&) {
  }
  try {
    const auto q = fleetsim::units::parse_quantity(text, (data[0] & 0x80) != 0);
    if (!std::isfinite(q.si)) std::abort();
    (void)fleetsim::units::describe(q.dim);
    (void)fleetsim::units::format(q.si, q.dim);
  } catch (const UnitError&) {
  }
  try {
    (void)fleetsim::units::parse_celsius(text);
  } catch (const UnitError&) {
  }
  return 0;
}

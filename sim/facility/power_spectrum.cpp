#include "sim/facility/power_spectrum.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <utility>

namespace fleetsim::facility {

void fft_radix2(std::vector<std::complex<double>>& x) {
  const size_t n = x.size();
  if (n == 0 || (n & (n - 1)) != 0) throw std::invalid_argument("fft_radix2: size must be a power of two");
  for (size_t i = 1, j = 0; i < n; ++i) {  // bit-reversal permutation
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(x[i], x[j]);
  }
  for (size_t len = 2; len <= n; len <<= 1) {  // butterflies, X_k = sum x_j e^{-2 pi i jk/N}
    const double angle = -2.0 * std::numbers::pi / static_cast<double>(len);
    const std::complex<double> w_len(std::cos(angle), std::sin(angle));
    for (size_t i = 0; i < n; i += len) {
      std::complex<double> w(1.0, 0.0);
      for (size_t k = 0; k < len / 2; ++k) {
        const std::complex<double> u = x[i + k], v = x[i + k + len / 2] * w;
        x[i + k] = u + v;
        x[i + k + len / 2] = u - v;
        w *= w_len;
      }
    }
  }
}

double PowerSpectrum::band_variance(Band b) const {
  double sum = 0;
  for (size_t k = 0; k < frequency_hz.size(); ++k)
    if (frequency_hz[k] >= b.low_hz && frequency_hz[k] < b.high_hz) sum += variance[k];
  return sum;
}

double PowerSpectrum::band_share(Band b) const {
  return total_variance > 0 ? band_variance(b) / total_variance : 0.0;
}

PowerSpectrum power_spectrum(const std::vector<double>& samples, double dt) {
  if (!(dt > 0)) throw std::invalid_argument("power_spectrum: dt must be positive");
  size_t n = 16;
  if (samples.size() < n) throw std::invalid_argument("power_spectrum: fewer than 16 samples");
  while (n * 2 <= samples.size()) n *= 2;
  double mean = 0;
  for (size_t i = 0; i < n; ++i) mean += samples[i];
  mean /= static_cast<double>(n);
  std::vector<std::complex<double>> x(n);
  double w2 = 0;  // mean square of the window: its power loss, undone below
  for (size_t i = 0; i < n; ++i) {
    const double w = 0.5 - 0.5 * std::cos(2.0 * std::numbers::pi * static_cast<double>(i) / static_cast<double>(n));
    w2 += w * w;
    x[i] = {(samples[i] - mean) * w, 0.0};
  }
  w2 /= static_cast<double>(n);
  fft_radix2(x);
  PowerSpectrum s;
  s.resolution_hz = 1.0 / (static_cast<double>(n) * dt);
  const double nn = static_cast<double>(n) * static_cast<double>(n) * w2;
  double best = -1;
  for (size_t k = 1; k <= n / 2; ++k) {
    // One-sided: bins 1..N/2-1 stand for +f and -f (Parseval: var = sum_{k != 0} |X_k|^2 / N^2).
    const double v = std::norm(x[k]) / nn * (k == n / 2 ? 1.0 : 2.0);
    s.frequency_hz.push_back(static_cast<double>(k) * s.resolution_hz);
    s.variance.push_back(v);
    s.total_variance += v;
    if (v > best) best = v, s.peak_hz = s.frequency_hz.back();
  }
  return s;
}

}  // namespace fleetsim::facility

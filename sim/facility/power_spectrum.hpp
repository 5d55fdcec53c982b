// The power spectrum of a sampled power signal and the share of its oscillation energy in stated
// frequency bands (issue #29; the grid's bands: data/validation/power_dynamics.csv F10-F14, F51).
//
// A radix-2 FFT written here (Cooley & Tukey 1965; iterative, bit-reversed order) so the project
// needs no FFT library: the signal is cut to the largest power of two it holds, its mean removed,
// a Hann window applied (Harris 1978), and the one-sided spectrum normalized so that the band
// variances add up to the signal's variance (Parseval).
#pragma once

#include <complex>
#include <vector>

namespace fleetsim::facility {

// In place, size a power of two; throws std::invalid_argument otherwise.
void fft_radix2(std::vector<std::complex<double>>& x);

struct Band {
  double low_hz = 0, high_hz = 0;  // [low, high)
};

struct PowerSpectrum {
  double resolution_hz = 0;            // bin width: 1 / (samples x dt)
  std::vector<double> frequency_hz;    // bins 1 .. N/2
  std::vector<double> variance;        // per bin, in the signal's unit squared; sums to the variance
  double total_variance = 0;           // of the (windowed, mean-removed) signal
  double peak_hz = 0;                  // bin with the largest variance
  [[nodiscard]] double band_variance(Band b) const;
  // Share of the oscillation energy (variance) in the band; 0 for a flat signal.
  [[nodiscard]] double band_share(Band b) const;
};

// `samples` spaced `dt` seconds apart; uses the first 2^k of them (k as large as fits, at least 2^4).
[[nodiscard]] PowerSpectrum power_spectrum(const std::vector<double>& samples, double dt);

}  // namespace fleetsim::facility

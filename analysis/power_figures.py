"""Figures of the power timeline (facility.power_timeline: on; sim/facility/power_dynamics.hpp):
the meter's power over a window, its spectrum with the grid's bands, and the trade-off of the
mitigations (the what-if scripts draw that one from several runs)."""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from analysis.results import Result
from analysis.style import BLUE, GREY, ORANGE, PURPLE, RED, plt

BANDS = [(0.1, 1.0, "0.1–1 Hz"), (1.0, 3.0, "1–3 Hz"), (3.0, 20.0, "3–20 Hz")]


def power_window(r: Result):
    """Top: the first minute of steady training at the timeline's resolution (meter, hall IT).
    Bottom: the sampled window of replication 0 at 1 s (the big steps: stops, restarts, stalls)."""
    steady, window = r.table("power/steady"), r.table("power/window")
    if steady.empty or window.empty:
        return None
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9.5, 5.6))
    t = steady["time"].to_numpy(float)
    top.plot(t, steady["meter"], color=RED, lw=0.9, label="meter")
    top.plot(t, steady["hall"], color=BLUE, lw=0.9, label="hall IT")
    top.set_xlabel("time in steady training (s)")
    top.set_ylabel("power (MW)")
    top.legend(loc="upper right", fontsize=8.5, ncol=2)
    swing = r.value("facility.power_dynamics.iteration_swing_mw")
    tel = r.value("facility.power_dynamics.iteration_swing_telemetry_mw")
    period = r.value("facility.power_dynamics.iteration_period_s")
    top.set_title(f"Steady training: iteration {period:.2f} s, swing at the meter {swing:.2f} MW "
                  f"({tel:.2f} MW after a 1 s average)", loc="left")
    th = window["time"].to_numpy(float)
    for col, color, label in (("meter", RED, "meter"), ("hall", BLUE, "hall IT")):
        # A day of 1 s averages is too dense to draw: each minute's range (band) and mean (line).
        n = len(th) // 60 * 60
        if n >= 120:
            m = window[col].to_numpy(float)[:n].reshape(-1, 60)
            tm = th[:n].reshape(-1, 60)[:, 0]
            bottom.fill_between(tm, m.min(axis=1), m.max(axis=1), color=color, alpha=0.25, lw=0)
            bottom.plot(tm, m.mean(axis=1), color=color, lw=0.8, label=f"{label}: minute mean, band = its 1 s range")
        else:
            bottom.plot(th, window[col], color=color, lw=0.7, label=f"{label}, 1 s average")
    bottom.set_xlabel("time since the run started (h)")
    bottom.set_ylabel("power (MW)")
    bottom.legend(loc="lower right", fontsize=8.5, ncol=2)
    stop = r.value("facility.power_dynamics.job_stop_swing_mw")
    up = r.value("facility.power_dynamics.ramp_up_mw_per_s")
    down = r.value("facility.power_dynamics.ramp_down_mw_per_s")
    bottom.set_title(f"Sampled window: job-stop swing {stop:.1f} MW, ramps up {up:.1f} / down {down:.1f} MW/s",
                     loc="left")
    fig.tight_layout()
    return fig


def power_spectrum(r: Result):
    """The meter's power spectrum in steady training, the grid's bands shaded, 1/T marked."""
    sp = r.table("power/spectrum")
    if sp.empty:
        return None
    fig, ax = plt.subplots(figsize=(9.5, 3.6))
    f = sp["frequency"].to_numpy(float)
    v = np.maximum(sp["variance"].to_numpy(float), 1e-12)
    for (lo, hi, label), color in zip(BANDS, (ORANGE, PURPLE, GREY)):
        share = r.value(f"facility.power_dynamics.band_share.{_band_key(lo, hi)}")
        ax.axvspan(lo, hi, color=color, alpha=0.12, lw=0, label=f"{label}: {100 * share:.1f}% of the energy")
    ax.loglog(f, v, color=RED, lw=0.8)
    period = r.value("facility.power_dynamics.iteration_period_s")
    if period > 0:
        ax.axvline(1 / period, color=BLUE, ls="--", lw=0.8, label=f"1 / iteration = {1 / period:.3f} Hz")
    ax.set_xlim(max(f.min(), 0.01), f.max())
    ax.set_xlabel("frequency (Hz)")
    ax.set_ylabel("variance per bin (MW²)")
    ax.legend(loc="lower left", fontsize=8.5)
    ax.set_title(f"Meter power spectrum in steady training: peak {r.value('facility.power_dynamics.spectrum_peak_hz'):.3f} Hz",
                 loc="left")
    return fig


def _band_key(lo: float, hi: float) -> str:
    return {0.1: "0p1_1hz", 1.0: "1_3hz", 3.0: "3_20hz"}[lo]


def mitigation_tradeoff(rows: Sequence[dict], limit_mw_per_s: Optional[float] = None, title: str = ""):
    """One point per configuration: the worst ramp at the meter against the extra energy it costs.
    rows: dicts with 'label', 'ramp' (MW/s), 'extra_energy' (share), 'throughput_loss' (share)."""
    fig, ax = plt.subplots(figsize=(9.5, 4.2))
    for row in rows:
        ax.scatter(100 * row["extra_energy"], row["ramp"], s=40 + 800 * row.get("throughput_loss", 0.0),
                   color=RED if limit_mw_per_s and row["ramp"] > limit_mw_per_s else BLUE, zorder=3)
        ax.annotate(row["label"], (100 * row["extra_energy"], row["ramp"]), textcoords="offset points",
                    xytext=(6, 4), fontsize=8)
    if limit_mw_per_s:
        ax.axhline(limit_mw_per_s, color=GREY, ls="--", lw=1, label=f"utility ramp limit {limit_mw_per_s:g} MW/s")
        ax.legend(loc="upper right", fontsize=8.5)
    ax.set_yscale("log")
    ax.set_xlabel("extra facility energy (%)")
    ax.set_ylabel("worst ramp at the meter (MW/s)")
    ax.set_title(title or "Mitigations: ramp at the meter vs energy (marker size: throughput lost)", loc="left")
    return fig

"""The look shared by every fleetsim figure: one palette (losses warm, useful work cool), readable
fonts, axis labels with units, human names for metrics and scenario keys."""
from __future__ import annotations

from typing import Optional

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import PercentFormatter  # noqa: E402

from analysis.results import Result  # noqa: E402

plt.rcParams.update({
    "figure.dpi": 110,
    "savefig.dpi": 130,
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.frameon": False,
})

# One palette for the whole project: losses warm, useful work cool.
BLUE, ORANGE, GREEN, RED, PURPLE, GREY = "#3b6ea8", "#e08a2c", "#4c9a5a", "#c8453b", "#7b5ea7", "#8c8c8c"
CYCLE = [BLUE, ORANGE, GREEN, RED, PURPLE, "#3aa6b9", "#b5874a", "#d46fa6", GREY, "#2f4858"]

METRIC_LABELS = {
    "step.mfu": "MFU",
    "step.hfu": "HFU",
    "step.iteration_time_s": "iteration time",
    "step.memory_per_gpu_gib": "memory per GPU",
    "run.ettr": "ETTR",
    "run.mtti_hours": "job MTTI",
    "run.wall_clock_days": "wall-clock",
    "run.tokens_trained": "tokens trained",
    "run.interruptions.unexpected": "unexpected interruptions",
    "facility.pue_mean": "PUE",
    "facility.facility_energy_mwh": "facility energy",
    "facility.it_energy_mwh": "IT energy",
    "facility.it_power_mean_mw": "IT power (mean)",
    "facility.energy_per_token_j": "energy per token",
    "facility.co2_tonnes": "CO₂e",
    "facility.throughput_factor_mean": "thermal throughput factor",
    "facility.gpu_temperature_mean_c": "GPU temperature (mean)",
    "facility.effective_utilization.value": "effective utilization",
    "facility.effective_utilization.factors.parallel_scaling_efficiency": "parallel scaling efficiency",
    "facility.effective_utilization.factors.single_gpu_efficiency": "single-GPU efficiency",
    "facility.effective_utilization.factors.energy_efficiency": "energy efficiency (1/PUE)",
    "facility.effective_utilization.factors.ettr": "ETTR",
    "facility.effective_utilization.factors.resource_utilization": "pool utilization",
}

# Key names as axis titles.
KEY_LABELS = {
    "cluster.gpus": "GPUs in the job",
    "cluster.cooling": "cooling plant",
    "cluster.fabric.oversubscription": "fabric oversubscription (x:1)",
    "checkpoint.interval": "checkpoint interval",
    "checkpoint.storage_bandwidth": "checkpoint storage bandwidth",
    "checkpoint.async": "asynchronous checkpoints",
    "failures.rate_scale": "failure-rate scale",
    "recovery.spare_nodes": "hot spare nodes",
    "recovery.policy": "restart policy",
}


def metric_label(name: str, result: Optional[Result] = None) -> str:
    if name in METRIC_LABELS:
        return METRIC_LABELS[name]
    if result is not None and result.description(name):
        return result.description(name).split(":")[0]
    return name.split(".")[-1].replace("_", " ")


def key_label(key: str) -> str:
    return KEY_LABELS.get(key, key.split(".")[-1].replace("_", " "))


def save(fig, path) -> str:
    from analysis.outputs import save_figure
    try:
        return save_figure(fig, path, bbox_inches="tight")
    finally:
        plt.close(fig)


def _is_ratio(unit: str) -> bool:
    return unit == "1"


def _percent_axis(ax, axis="y"):
    fmt = PercentFormatter(1.0, decimals=None)
    (ax.yaxis if axis == "y" else ax.xaxis).set_major_formatter(fmt)


def _empty(title: str, message: str):
    fig, ax = plt.subplots(figsize=(7, 2.2))
    ax.axis("off")
    ax.set_title(title, loc="left")
    ax.text(0.5, 0.45, message, ha="center", va="center", color=GREY, transform=ax.transAxes)
    return fig


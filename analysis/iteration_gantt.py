"""The iteration timeline as a static Gantt chart: one row per pipeline rank (one representative GPU
per stage), from the results file's `iteration_schedule` table, which the step model's own schedule
wrote (sim/step/trace.hpp; the same spans `fleetsim step --trace` writes for Perfetto)."""
from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.patches import Patch

from analysis.results import Result
from analysis.style import BLUE, GREEN, GREY, ORANGE, PURPLE, RED

# Top-level spans of the compute stream, and the communication parts drawn over them.
_TOP = {
    "forward": (BLUE, "forward"),
    "backward": (GREEN, "backward (incl. recompute)"),
    "bubble": ("#f2f2f2", "pipeline bubble"),
    "overlap_contention": ("#b07aa1", "compute slowed by overlapped NCCL kernels"),
    "dp_exposed": (RED, "waiting for DP communication"),
    "optimizer": (PURPLE, "optimizer"),
    "idle": ("#dddddd", "idle until the slowest stage"),
}
_PARTS = {
    "tp_comm": (ORANGE, "TP communication"),
    "pp_comm": ("#2f4858", "pipeline send"),
    "cp_comm": ("#d46fa6", "CP exchange (exposed)"),
    "ep_comm": ("#b5874a", "EP all-to-all"),
}


def iteration_gantt(r: Result):
    """Returns the figure, or None when the result has no iteration_schedule table."""
    t = r.table("iteration_schedule")
    if t.empty:
        return None
    ranks = sorted(int(x) for x in t["rank"].unique())
    n = len(ranks)
    fig, ax = plt.subplots(figsize=(10, 1.2 + 0.42 * n))
    compute = t[t["stream"] == "compute"]
    for cat, (color, _) in _TOP.items():
        sel = compute[(compute["depth"] == 0) & (compute["category"] == cat)]
        for rank, grp in sel.groupby("rank"):
            ax.broken_barh(list(zip(grp["start_s"], grp["duration_s"])), (rank - 0.4, 0.5),
                           facecolors=color, edgecolor="white" if cat in ("forward", "backward") else "none",
                           linewidth=0.2)
    for cat, (color, _) in _PARTS.items():
        sel = compute[compute["category"] == cat]
        for rank, grp in sel.groupby("rank"):
            ax.broken_barh(list(zip(grp["start_s"], grp["duration_s"])), (rank - 0.4, 0.15), facecolors=color)
    dp = t[t["stream"] != "compute"]
    for rank, grp in dp.groupby("rank"):
        ax.broken_barh(list(zip(grp["start_s"], grp["duration_s"])), (rank + 0.13, 0.2), facecolors=GREY,
                       alpha=0.8)
    end = float((t["start_s"] + t["duration_s"]).max())
    ax.set_xlim(0, end * 1.005)
    ax.set_ylim(n - 0.5, -0.6)
    ax.set_yticks(ranks)
    ax.set_yticklabels([f"stage {k}" for k in ranks], fontsize=8)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel("time within one iteration (s)")
    handles = [Patch(color=c, label=l) for c, l in list(_TOP.values()) + list(_PARTS.values())]
    handles.append(Patch(color=GREY, label="DP reduce-scatter / all-gather (overlapped stream)"))
    present = set(t["category"])
    keep = [h for h, k in zip(handles, list(_TOP) + list(_PARTS) + ["dp_comm"]) if k in present]
    # Below the axis label: about 0.55 in under the axes, whatever the number of stages.
    ax.legend(handles=keep, loc="upper center", bbox_to_anchor=(0.5, -0.55 / (0.42 * n + 0.6)), ncol=4, fontsize=8)
    ax.set_title(f"One iteration, per pipeline stage ({end:.3g} s): ops as the schedule placed them", loc="left")
    return fig

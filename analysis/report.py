#!/usr/bin/python3
"""An HTML report from a fleetsim result file or a sweep directory.

    /usr/bin/python3 analysis/report.py RESULT.h5 -o DIR     # one run
    /usr/bin/python3 analysis/report.py SWEEP_DIR -o DIR     # a sweep (fleetsim sweep ... -o SWEEP_DIR)

DIR/report.html is self-contained (figures inlined, opens in any browser); the same figures are
written beside it as PNG files.
"""
from __future__ import annotations

import argparse
import base64
import datetime as _dt
import html
import math
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis import figures as F  # noqa: E402
from analysis.outputs import check_file, output_dir, write_text  # noqa: E402
from analysis.results import Result, Sweep, load, unit_text  # noqa: E402

CSS = """
body { font-family: -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 1100px;
       color: #222; line-height: 1.45; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.1em; } h2 { font-size: 1.25em; margin-top: 1.8em;
     border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
.sub { color: #666; margin-top: 0; }
.cards { display: flex; flex-wrap: wrap; gap: 0.7em; margin: 1em 0; }
.card { border: 1px solid #ddd; border-radius: 6px; padding: 0.5em 0.9em; min-width: 9em; background: #fafafa; }
.card .v { font-size: 1.35em; font-weight: 600; } .card .k { color: #555; font-size: 0.85em; }
.card .b { color: #888; font-size: 0.8em; } .card .iv { color: #335; }
span.iv { color: #777; font-size: 0.85em; }
table { border-collapse: collapse; font-size: 0.88em; margin: 0.6em 0; }
th, td { border-bottom: 1px solid #e5e5e5; padding: 0.25em 0.7em; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.failed td { background: #fdf0ee; }
figure { margin: 1.2em 0; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { color: #555; font-size: 0.9em; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
details summary { cursor: pointer; color: #335; }
"""

CAPTIONS = {
    "power_window": "The power timeline (facility.power_timeline: on): top, one minute of steady training at "
                    "its resolution, the pipeline stages' compute and communication phases summed at the hall "
                    "and at the meter; bottom, the sampled window of replication 0 as 1 s averages, where "
                    "failures, restarts and checkpoint stalls make the big steps.",
    "power_spectrum": "The meter's power spectrum in steady training (Hann window, radix-2 FFT), with the "
                      "bands utilities state limits in (0.1–1, 1–3, 3–20 Hz) and the iteration frequency.",
    "waterfall": "The five factors of effective utilization (DESIGN.md §1), each taking its share of what "
                 "is left: energy efficiency (1/PUE), single-GPU efficiency, parallel scaling, ETTR and pool "
                 "utilization. Red: the loss each factor causes, in percentage points of facility energy. "
                 "Whiskers (where the result has intervals): each factor's interval applied to what is left "
                 "before it, and the product's own interval (sim/uncertainty/README.md, \"Waterfall intervals\").",
    "iteration_breakdown": "One training iteration's critical path by component; compute is useful work, "
                           "everything else is exposed communication, pipeline bubble or optimizer time.",
    "iteration_timeline": "One iteration as the step model's schedule placed it, one row per pipeline stage "
                          "(a representative GPU): forwards, backwards (with recomputation), the bubble, "
                          "then the exposed data-parallel communication and the optimizer; thin bars: TP "
                          "communication and pipeline sends inside the ops; grey: the overlapped DP stream. "
                          "The same spans `fleetsim step --trace` writes for Perfetto.",
    "run_timeline": "Replication 0 of the run: each interruption on its cause's row (the mark spans the "
                    "outage it caused), durable checkpoints, and the throughput left per time bin "
                    "(outages and checkpoint stalls count as zero, thermal throttling as its factor).",
    "interruptions_by_cause": "Unexpected interruptions per failure cause over the run: mean over the "
                              "replications, whiskers from the 5th to the 95th percentile.",
    "ettr_distribution": "Effective training time ratio (productive time / wall-clock) of each Monte-Carlo "
                         "replication.",
    "lost_time": "Wall-clock hours lost per phase of recovery over the replications (box: quartiles, "
                 "whiskers: p05-p95, dot: mean).",
    "facility_series": "Replication 0's facility: PUE, IT and facility power, outdoor / inlet / GPU "
                       "temperatures (and the thermal throughput factor when the GPUs throttle).",
    "scaling_vs_gpus": "MFU against the GPU count, and scaling efficiency two ways: MFU relative to the "
                       "smallest point, and the model's parallel-scaling factor (MFU / single-GPU MFU).",
    "reliability_vs_gpus": "ETTR, job mean time to interruption and interruptions against the GPU count.",
}

RESULT_CARDS = [
    ("step.mfu", "MFU", "pct"), ("step.iteration_time_s", "iteration", "num"), ("run.ettr", "ETTR", "pct"),
    ("run.mtti_hours", "job MTTI", "num"), ("run.wall_clock_days", "wall-clock", "num"),
    ("run.tokens_trained", "tokens", "big"), ("facility.pue_mean", "PUE", "num"),
    ("facility.facility_energy_mwh", "facility energy", "num"),
    ("facility.effective_utilization.value", "effective utilization", "pct"),
]


def fmt(v: float, kind: str = "num", unit: str = "") -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    u = unit_text(unit)
    if kind == "pct":
        return f"{100 * v:.1f}%"
    if kind == "big" or abs(v) >= 1e6:
        for s, d in (("T", 1e12), ("B", 1e9), ("M", 1e6)):
            if abs(v) >= d:
                return f"{v / d:.3g}{s}" + (f" {u}" if u else "")
    if abs(v) >= 1000:
        txt = f"{v:,.0f}"
    elif abs(v) >= 1 or v == 0:
        txt = f"{v:.4g}"
    else:
        txt = f"{v:.3g}"
    return txt + (f" {u}" if u else "")


def img(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" alt="{html.escape(path.stem)}">'


def figure_block(path: Path, caption: str = "") -> str:
    cap = f"<figcaption><b>{html.escape(path.name)}</b>. {html.escape(caption)}</figcaption>"
    return f"<figure>{img(path)}{cap}</figure>"


def write_figures(figs: dict, out: Path) -> list:
    paths = []
    for stem, fig in figs.items():
        paths.append(Path(F.save(fig, out / f"{stem}.png")))
    return paths


def cards(r: Result) -> str:
    out = ['<div class="cards">']
    for name, label, kind in RESULT_CARDS:
        if not r.has(name):
            continue
        s, unit = r.stat(name), r.unit(name)
        u = "" if kind == "pct" else unit
        band = (f'<div class="b">p05–p95 {fmt(s.p05, kind, u)} – '
                f'{fmt(s.p95, kind, u)}</div>') if s.p95 - s.p05 > 1e-3 * abs(s.mean) else ""
        iv = r.interval(name)
        if iv is not None:  # issue 25: the interval beside the value
            band += (f'<div class="b iv">{100 * iv.level:.0f}% interval {fmt(iv.lo, kind, u)} – '
                     f'{fmt(iv.hi, kind, u)}</div>')
        out.append(f'<div class="card"><div class="k">{html.escape(label)}</div>'
                   f'<div class="v">{fmt(s.mean, kind, "" if kind == "pct" else unit)}</div>{band}</div>')
    out.append("</div>")
    grades = [(sec, p) for sec, p in r.provenances.items()]
    if grades:
        out.append("<p class='sub'>" + " · ".join(
            f"{html.escape(sec)}: <b>{html.escape(str(p['grade']))}</b> – {html.escape(str(p['why']))}"
            for sec, p in grades) + "</p>")
    return "".join(out)


def metrics_table(r: Result) -> str:
    rows = ["<table><tr><th>metric</th><th>value</th><th>p05</th><th>p95</th><th>interval</th><th>unit</th>"
            "<th>description</th></tr>"]
    for name, m in r.metrics.iterrows():
        if m["text"] is not None and isinstance(m["text"], str):
            val, p05, p95 = html.escape(m["text"]), "", ""
        else:
            val = fmt(m["value"])
            p05 = fmt(m["p05"]) if m["is_stat"] else ""
            p95 = fmt(m["p95"]) if m["is_stat"] else ""
        iv = r.interval(name)
        ivt = f"[{fmt(iv.lo)}, {fmt(iv.hi)}] at {100 * iv.level:.0f}%" if iv is not None else ""
        rows.append(f"<tr><td><code>{html.escape(name)}</code></td><td class='n'>{val}</td><td class='n'>{p05}</td>"
                    f"<td class='n'>{p95}</td><td class='n'>{ivt}</td><td>{html.escape(unit_text(str(m['unit'])))}</td>"
                    f"<td>{html.escape(str(m['description']))}</td></tr>")
    rows.append("</table>")
    return "".join(rows)


def provenance(r: Result) -> str:
    rows = "".join(f"<tr><td>{html.escape(str(k))}</td><td><code>{html.escape(str(v))}</code></td></tr>"
                   for k, v in r.meta.items())
    scen = (f"<details><summary>resolved scenario</summary><pre>{html.escape(r.resolved_scenario)}</pre></details>"
            if r.resolved_scenario else "")
    # Issue 25: how sure, per section (grade, why, the judged sources).
    graded = "".join(
        f"<tr><td>{html.escape(sec)}</td><td><b>{html.escape(str(p['grade']))}</b></td><td>{html.escape(str(p['why']))}"
        f"</td><td>{html.escape('; '.join(p['sources']))}</td></tr>" for sec, p in r.provenances.items())
    grades = (f"<table class='provenance'><tr><th>section</th><th>grade</th><th>why</th><th>judged by</th></tr>"
              f"{graded}</table>") if graded else ""
    return f"{grades}<table>{rows}</table>{scen}"


def page(title: str, subtitle: str, body: str) -> str:
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{CSS}</style></head><body><h1>{html.escape(title)}</h1>"
            f"<p class='sub'>{html.escape(subtitle)} · report written {stamp}</p>{body}</body></html>\n")


def result_report(r: Result, out: Path) -> Path:
    paths = write_figures(F.result_figures(r), out)
    body = [cards(r), "<h2>Figures</h2>"]
    body += [figure_block(p, CAPTIONS.get(p.stem, "")) for p in paths]
    body += ["<h2>All metrics</h2><details><summary>every metric in the file, with its unit</summary>",
             metrics_table(r), "</details>", "<h2>Provenance</h2>", provenance(r)]
    title = f"fleetsim run: {Path(r.label()).stem}"
    sub = f"{r.path.name} · {r.meta.get('command', '')}"
    write_text(out / "report.html", page(title, sub, "".join(body)))
    return out / "report.html"


INDEX_COLUMNS = [("mfu", "MFU", "pct"), ("iteration_time_s", "iteration (s)", "num"), ("ettr", "ETTR", "pct"),
                 ("mtti_hours", "MTTI (h)", "num"), ("wall_clock_days", "wall-clock (d)", "num"),
                 ("pue_mean", "PUE", "num"), ("facility_energy_mwh", "energy (MWh)", "num"),
                 ("effective_utilization", "eff. util.", "pct")]


def _cell(row, c: str, kind: str) -> str:
    """A value with its interval below it where the index has one (issue 25: NAME_lo, NAME_hi)."""
    text = fmt(row[c], kind)
    lo, hi = row.get(c + "_lo"), row.get(c + "_hi")
    if lo is not None and hi is not None and not (pd.isna(lo) or pd.isna(hi)):
        text += f"<br><span class='iv'>[{fmt(float(lo), kind)}, {fmt(float(hi), kind)}]</span>"
    return text


def index_table(s: Sweep) -> str:
    cols = [c for c in INDEX_COLUMNS if c[0] in s.index.columns]
    extra = [c for c in ("replications", "provenance_grade") if c in s.index.columns]
    head = "".join(f"<th>{html.escape(k)}</th>" for k in s.keys) + "<th>status</th>" + \
        "".join(f"<th>{html.escape(lbl)}</th>" for _, lbl, _ in cols) + \
        "".join(f"<th>{html.escape(c.replace('_', ' '))}</th>" for c in extra)
    rows = [f"<table><tr><th>point</th>{head}</tr>"]
    for _, row in s.index.iterrows():
        cls = " class='failed'" if row["status"] != "ok" else ""
        cells = "".join(f"<td>{html.escape(str(row[k]))}</td>" for k in s.keys)
        status = html.escape(row["status"]) + (f": {html.escape(str(row['error']))}" if row["status"] != "ok" else "")
        vals = "".join(f"<td class='n'>{_cell(row, c, kind)}</td>" for c, _, kind in cols)
        vals += "".join(f"<td>{html.escape('' if pd.isna(row[c]) else str(row[c]).removesuffix('.0'))}</td>"
                        for c in extra)
        rows.append(f"<tr{cls}><td>{row['point']}</td>{cells}<td>{status}</td>{vals}</tr>")
    rows.append("</table>")
    return "".join(rows)


def sweep_report(s: Sweep, out: Path) -> Path:
    paths = write_figures(F.sweep_figures(s), out)
    n_ok, n_failed = len(s.ok), len(s.failed)
    body = [f"<p>{len(s.index)} points over {', '.join(f'<code>{html.escape(k)}</code>' for k in s.keys)}: "
            f"{n_ok} finished, {n_failed} failed. Bands and whiskers span the 5th to 95th percentile over "
            f"the Monte-Carlo replications of each point; where a point carries an interval (the step model's "
            f"model-form error with the Monte-Carlo spread, sim/uncertainty), a lighter dashed band or the "
            f"whiskers span that instead, and the table gives it below each value with the point's provenance "
            f"grade. Every point uses the same seed.</p>"]
    body += ["<h2>Figures</h2>"] + [figure_block(p, CAPTIONS.get(p.stem, _sweep_caption(p.stem))) for p in paths]
    body += ["<h2>Points</h2>", index_table(s)]
    if s.spec:
        body += ["<h2>Provenance</h2>", f"<pre>{html.escape(s.spec.get('command', ''))}</pre>"]
    title = f"fleetsim sweep: {s.path.name}"
    write_text(out / "report.html", page(title, str(s.path), "".join(body)))
    return out / "report.html"


def _sweep_caption(stem: str) -> str:
    if stem.startswith("headlines_vs_"):
        return "MFU, parallel scaling, ETTR, MTTI, PUE, facility energy, effective utilization and wall-clock " \
               "at each point of the sweep."
    if stem.startswith("energy_vs_"):
        return "PUE, facility energy, effective utilization and the thermal throughput factor per cooling plant."
    return ""


def plan_report(path: Path, out: Path) -> Path:
    from analysis import plan_figures as P
    paths = P.plan_figures(path, out)
    captions = {
        "plan_pareto": "Every design the plan ran, by wall-clock and cost of the run; colour: peak facility power "
                       "at the meter. Grey outlines violate a constraint; red circles: the Pareto set over days, "
                       "cost and MW of the designs that meet every constraint.",
        "plan_waterfall": "The run of the cheapest design that meets the deadline, from its GPU-hours to dollars: "
                          "the annuity on servers and network and on the facility for the run's share of their "
                          "life, operations, and the energy at the site's price.",
    }
    body = ["<h2>Figures</h2>"] + [figure_block(p, captions.get(p.stem, "")) for p in paths]
    title = f"fleetsim plan: {path.name}"
    write_text(out / "report.html", page(title, str(path), "".join(body)))
    return out / "report.html"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("path", help="a result file (.h5) or a sweep directory")
    ap.add_argument("-o", "--output", required=True, help="directory for report.html and the PNG figures")
    a = ap.parse_args(argv)
    out = output_dir(a.output)
    check_file(out / "report.html")  # before the figures are drawn
    from analysis.plan_figures import is_plan
    if Path(a.path).is_file() and is_plan(a.path):
        print(f"report written to {plan_report(Path(a.path), out)}")
        return 0
    obj = load(a.path)
    path = sweep_report(obj, out) if isinstance(obj, Sweep) else result_report(obj, out)
    print(f"report written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

// fleetsim studio: the figures, drawn with Chart.js 3 (Debian's libjs-chart.js, served by
// `fleetsim serve` from this origin; https://www.chartjs.org/docs/3.9.1/) from the JSON that
// `fleetsim run --json` and `fleetsim plan --json` print. Each draw* function takes that JSON
// (the current result, and the pinned one for A/B) and redraws one canvas in place.
'use strict';

const FleetsimCharts = (function () {
  const charts = {};
  const COLORS = ['#3b6fb6', '#e07b39', '#5a9e4b', '#b8464b', '#8a6bb8', '#c9a227', '#4bb3b8', '#7f7f7f', '#d46fa7', '#2f4f4f'];

  // 80% intervals as whiskers on bars: dataset.whiskers[i] = [lo, hi] in the value axis' units.
  const whiskerPlugin = {
    id: 'fleetsimWhiskers',
    afterDatasetsDraw(chart) {
      const ctx = chart.ctx;
      chart.data.datasets.forEach((ds, di) => {
        if (!ds.whiskers) return;
        const meta = chart.getDatasetMeta(di);
        if (meta.hidden) return;
        const scale = chart.scales[meta.yAxisID];
        meta.data.forEach((bar, i) => {
          const w = ds.whiskers[i];
          if (!w) return;
          const y0 = scale.getPixelForValue(w[0]), y1 = scale.getPixelForValue(w[1]);
          ctx.save();
          ctx.strokeStyle = '#1d2330';
          ctx.lineWidth = 1.5;
          ctx.beginPath();
          ctx.moveTo(bar.x, y0); ctx.lineTo(bar.x, y1);
          ctx.moveTo(bar.x - 5, y0); ctx.lineTo(bar.x + 5, y0);
          ctx.moveTo(bar.x - 5, y1); ctx.lineTo(bar.x + 5, y1);
          ctx.stroke();
          ctx.restore();
        });
      });
    },
  };

  // A vertical line at options.plugins.fleetsimLine.x (the plan's deadline).
  const linePlugin = {
    id: 'fleetsimLine',
    afterDraw(chart, _args, opts) {
      if (!opts || opts.x === undefined || opts.x === null) return;
      const x = chart.scales.x.getPixelForValue(opts.x);
      const area = chart.chartArea;
      if (x < area.left || x > area.right) return;
      const ctx = chart.ctx;
      ctx.save();
      ctx.strokeStyle = '#b00020';
      ctx.setLineDash([5, 4]);
      ctx.beginPath(); ctx.moveTo(x, area.top); ctx.lineTo(x, area.bottom); ctx.stroke();
      ctx.fillStyle = '#b00020';
      ctx.fillText(opts.label || '', x + 4, area.top + 12);
      ctx.restore();
    },
  };

  function available() { return typeof Chart !== 'undefined'; }

  function draw(id, config) {
    if (!available()) return null;
    config.options = Object.assign({animation: false, responsive: true, maintainAspectRatio: false}, config.options || {});
    if (charts[id]) {
      charts[id].data = config.data;
      charts[id].options = config.options;
      charts[id].update('none');
      return charts[id];
    }
    const canvas = document.getElementById(id);
    charts[id] = new Chart(canvas, Object.assign(config, {plugins: [whiskerPlugin, linePlugin]}));
    return charts[id];
  }

  const FACTORS = [
    ['resource_utilization', 'pool', 'loss_gpu_hours'],
    ['ettr', 'ETTR', 'loss_gpu_hours'],
    ['parallel_scaling_efficiency', 'scaling', 'loss_gpu_hours'],
    ['single_gpu_efficiency', 'single-GPU', 'loss_gpu_hours'],
    ['energy_efficiency', '1/PUE', 'loss_mwh'],
  ];

  // The waterfall: from 1 (every GPU-hour bought) down by each factor to the effective
  // utilization; each step's whisker is the factor's 80% interval applied to what came before.
  function waterfallSteps(result) {
    const eu = result.facility.effective_utilization;
    const labels = [], bars = [], whiskers = [];
    let before = 1;
    for (const [key, label] of FACTORS) {
      const f = eu.factors[key];
      const iv = eu.factors[key + '_interval'];
      const after = before * f.mean;
      labels.push(label + ' ' + f.mean.toFixed(3));
      bars.push([after, before]);
      whiskers.push(iv ? [before * iv.lo, before * iv.hi] : null);
      before = after;
    }
    labels.push('effective ' + eu.value.mean.toFixed(3));
    bars.push([0, eu.value.mean]);
    whiskers.push(eu.value_interval ? [eu.value_interval.lo, eu.value_interval.hi] : null);
    return {labels, bars, whiskers};
  }

  function drawWaterfall(result, pinned) {
    if (!result.facility || !result.facility.effective_utilization) return;
    const b = waterfallSteps(result);
    const datasets = [];
    if (pinned && pinned.facility && pinned.facility.effective_utilization) {
      const a = waterfallSteps(pinned);
      datasets.push({label: 'A (pinned)', data: a.bars, whiskers: a.whiskers, backgroundColor: 'rgba(127,127,127,0.45)'});
    }
    datasets.push({label: pinned ? 'B (current)' : 'current', data: b.bars, whiskers: b.whiskers,
                   backgroundColor: b.bars.map((_, i) => i === b.bars.length - 1 ? '#5a9e4b' : '#e07b39')});
    draw('chart-waterfall', {
      type: 'bar',
      data: {labels: b.labels, datasets},
      options: {scales: {y: {min: 0, max: 1, title: {display: true, text: 'share of GPU-hours bought'}}},
                plugins: {legend: {display: !!pinned}}},
    });
  }

  const PHASES = [['compute', 'compute'], ['tp_comm', 'TP comm'], ['cp_comm', 'CP comm'], ['ep_comm', 'EP comm'],
                  ['pp_comm', 'PP comm'], ['dp_comm', 'DP comm'], ['bubble', 'pipeline bubble'], ['optimizer', 'optimizer']];

  // One iteration on a time axis: compute, each exposed communication, the bubble and the
  // optimizer, in the order they add up to step.iteration_time_s.
  function drawIteration(result, pinned) {
    const rows = pinned ? [['A (pinned)', pinned], ['B (current)', result]] : [['iteration', result]];
    const datasets = PHASES.map(([key, label], i) => ({
      label, backgroundColor: COLORS[i % COLORS.length],
      data: rows.map(([, r]) => (r.step.breakdown_s[key] || 0)),
    }));
    draw('chart-iteration', {
      type: 'bar',
      data: {labels: rows.map(([l]) => l), datasets},
      options: {indexAxis: 'y', scales: {x: {stacked: true, title: {display: true, text: 'seconds'}}, y: {stacked: true}},
                plugins: {legend: {position: 'bottom'}}},
    });
  }

  function drawEttr(result, pinned) {
    const causes = result.run.interruptions.by_cause || {};
    const names = Object.keys(causes).sort((a, b) => causes[b].mean - causes[a].mean);
    const cause = (r, n) => (r.run.interruptions.by_cause && r.run.interruptions.by_cause[n] ? r.run.interruptions.by_cause[n].mean : 0);
    const ds = [];
    if (pinned) ds.push({label: 'A (pinned)', data: names.map(n => cause(pinned, n)), backgroundColor: 'rgba(127,127,127,0.5)'});
    ds.push({label: pinned ? 'B (current)' : 'interruptions', data: names.map(n => cause(result, n)), backgroundColor: '#b8464b',
             whiskers: names.map(n => [causes[n].p05, causes[n].p95])});
    draw('chart-causes', {
      type: 'bar', data: {labels: names.map(n => n.replace(/_/g, ' ')), datasets: ds},
      options: {scales: {y: {title: {display: true, text: 'interruptions (mean, p05-p95)'}}}, plugins: {legend: {display: !!pinned}}},
    });
    const lost = result.run.lost_hours || {};
    const keys = Object.keys(lost);
    const ls = [];
    if (pinned) ls.push({label: 'A (pinned)', data: keys.map(k => pinned.run.lost_hours[k] ? pinned.run.lost_hours[k].mean : 0),
                         backgroundColor: 'rgba(127,127,127,0.5)'});
    ls.push({label: pinned ? 'B (current)' : 'hours lost', data: keys.map(k => lost[k].mean), backgroundColor: '#8a6bb8'});
    draw('chart-lost', {
      type: 'bar', data: {labels: keys.map(k => k.replace(/_/g, ' ')), datasets: ls},
      options: {scales: {y: {title: {display: true, text: 'wall-clock hours lost (mean)'}}}, plugins: {legend: {display: !!pinned}}},
    });
  }

  function drawPower(series) {
    const list = (series && series.power_steady) || [];
    const mw = list.filter(s => /MW/.test(s.unit));
    const shown = mw.length ? mw : list.slice(0, 1);
    draw('chart-power', {
      type: 'line',
      data: {datasets: shown.map((s, i) => ({
        label: s.name + ' (' + s.unit + ')', borderColor: COLORS[i % COLORS.length], pointRadius: 0, borderWidth: 1.2,
        data: s.values.map((v, k) => ({x: k * s.dt_s, y: v})),
      }))},
      options: {parsing: false, scales: {x: {type: 'linear', title: {display: true, text: 'seconds of steady training'}},
                                         y: {title: {display: true, text: shown.length ? shown[0].unit : ''}}}},
    });
  }

  // The plan's designs: days x cost, the point's size the peak facility MW; the Pareto set and
  // the cheapest design that meets the deadline marked.
  function drawPlan(planJson) {
    const p = planJson.plan;
    const designs = p.designs.filter(d => d.evaluated && d.days > 0);
    const pareto = new Set(p.pareto || []);
    const radius = d => 3 + 2 * Math.sqrt(Math.max(0, d.peak_facility_mw || 0));
    const pt = d => ({x: d.days, y: d.cost_usd / 1e6, r: radius(d), index: d.index});
    // With parsing off, Chart.js takes each dataset sorted by x (docs: "Data structure", parsing).
    const sorted = list => list.map(pt).sort((a, b) => a.x - b.x);
    const cheapest = p.designs.find(d => d.index === p.cheapest_meeting_deadline);
    const datasets = [
      {label: 'other designs (dominated, or over a constraint)', data: sorted(designs.filter(d => !pareto.has(d.index))), backgroundColor: 'rgba(127,127,127,0.35)'},
      {label: 'Pareto set', data: sorted(designs.filter(d => pareto.has(d.index))), backgroundColor: 'rgba(59,111,182,0.8)'},
    ];
    if (cheapest) datasets.unshift({label: 'cheapest in deadline', data: [Object.assign(pt(cheapest), {r: radius(cheapest) + 6})],
                                    backgroundColor: 'rgba(224,161,0,0.9)', borderColor: '#b00020', borderWidth: 3,
                                    pointStyle: 'rectRot'});
    const deadline = p.constraints && p.constraints.deadline_days > 0 ? p.constraints.deadline_days : null;
    draw('chart-plan', {
      type: 'bubble', data: {datasets},
      options: {parsing: false,
                scales: {x: {type: 'linear', title: {display: true, text: 'days to train'}},
                         y: {type: 'linear', title: {display: true, text: 'cost (M USD); size: peak facility MW'}}},
                plugins: {fleetsimLine: {x: deadline, label: deadline ? 'deadline ' + deadline + ' d' : ''}}},
    });
  }

  return {available, drawWaterfall, drawIteration, drawEttr, drawPower, drawPlan, FACTORS};
})();

// fleetsim studio: the headline cards and the tables (waterfall factors, A/B) from the JSON that
// `fleetsim run --json` prints. Each card and row keeps the exact JSON number in data-value, which
// the browser tests compare with the CLI's output.
'use strict';

const FleetsimViews = (function () {
  const $ = id => document.getElementById(id);
  const fmt = (v, d) => (v === undefined || v === null || Number.isNaN(v) ? '–' :
    Math.abs(v) >= 1e5 ? v.toExponential(3) : Number(v).toPrecision(d || 4));
  const mean = v => (v && typeof v === 'object' && 'mean' in v ? v.mean : v);
  function get(obj, path) { return path.split('.').reduce((o, k) => (o === undefined || o === null ? undefined : o[k]), obj); }

  // Every headline figure: [label, path in the run JSON, unit]; the A/B table lists the same.
  const HEADLINE = [
    ['effective utilization', 'facility.effective_utilization.value', ''],
    ['MFU', 'step.mfu', ''],
    ['iteration time', 'step.iteration_time_s', 's'],
    ['ETTR', 'run.ettr', ''],
    ['wall-clock', 'run.wall_clock_days', 'd'],
    ['tokens trained', 'run.tokens_trained', ''],
    ['MTTI', 'run.mtti_hours', 'h'],
    ['memory per GPU', 'step.memory_per_gpu_gib', 'GiB'],
  ];
  const ENERGY = [
    ['facility energy', 'facility.facility_energy_mwh', 'MWh'],
    ['IT energy', 'facility.it_energy_mwh', 'MWh'],
    ['PUE', 'facility.pue_mean', ''],
    ['CO2e', 'facility.co2_tonnes', 't'],
    ['energy cost', 'facility.cost_usd', 'USD'],
    ['energy per token', 'facility.energy_per_token_j', 'J'],
    ['IT power (mean)', 'facility.it_power_mean_mw', 'MW'],
    ['IT power (peak)', 'facility.it_power_peak_mw', 'MW'],
  ];

  function card(label, path, unit, result) {
    const v = get(result, path);
    const iv = get(result, path + '_interval');
    const d = document.createElement('div');
    d.className = 'card';
    const value = mean(v);
    d.dataset.key = path;
    if (value !== undefined) d.dataset.value = String(value);
    d.innerHTML = '<div class="label"></div><div class="value"></div><div class="interval"></div>';
    d.children[0].textContent = label;
    d.children[1].textContent = fmt(value) + (unit ? ' ' + unit : '');
    d.children[2].textContent = iv ? '80% [' + fmt(iv.lo) + ', ' + fmt(iv.hi) + ']' : '';
    return d;
  }

  function cards(boxId, list, result) {
    const box = $(boxId);
    box.replaceChildren(...list.filter(([, p]) => get(result, p) !== undefined).map(([l, p, u]) => card(l, p, u, result)));
  }

  function row(cells, tag) {
    const tr = document.createElement('tr');
    for (const c of cells) { const td = document.createElement(tag || 'td'); td.textContent = c; tr.appendChild(td); }
    return tr;
  }

  function waterfallTable(result) {
    const t = $('waterfall-table');
    const eu = result.facility && result.facility.effective_utilization;
    if (!eu) { t.replaceChildren(); return; }
    const rows = [row(['factor', 'value', '80% interval', 'lost'], 'th')];
    for (const [key, label, lossKind] of FleetsimCharts.FACTORS) {
      const f = eu.factors[key], iv = eu.factors[key + '_interval'];
      const loss = eu[lossKind] && eu[lossKind][key];
      const r = row([label, fmt(f.mean), iv ? '[' + fmt(iv.lo) + ', ' + fmt(iv.hi) + ']' : '',
                     loss ? fmt(loss.mean) + (lossKind === 'loss_mwh' ? ' MWh' : ' GPU-h') : '–']);
      r.dataset.key = 'facility.effective_utilization.factors.' + key;
      r.dataset.value = String(f.mean);
      rows.push(r);
    }
    const total = row(['effective utilization', fmt(eu.value.mean),
                       eu.value_interval ? '[' + fmt(eu.value_interval.lo) + ', ' + fmt(eu.value_interval.hi) + ']' : '',
                       fmt(eu.useful_gpu_hours ? eu.useful_gpu_hours.mean : undefined) + ' useful GPU-h']);
    total.dataset.key = 'facility.effective_utilization.value';
    total.dataset.value = String(eu.value.mean);
    rows.push(total);
    t.replaceChildren(...rows);
  }

  function abTable(a, b) {
    const rows = [row(['figure', 'A (pinned)', 'B (current)', 'B − A', 'change'], 'th')];
    for (const [label, path, unit] of HEADLINE.concat(ENERGY)) {
      const va = mean(get(a, path)), vb = mean(get(b, path));
      if (va === undefined && vb === undefined) continue;
      const diff = vb - va;
      const r = row([label + (unit ? ' (' + unit + ')' : ''), fmt(va), fmt(vb), fmt(diff),
                     va ? (100 * diff / Math.abs(va)).toFixed(1) + '%' : '–']);
      r.children[3].className = diff > 0 ? 'pos' : diff < 0 ? 'neg' : '';
      rows.push(r);
    }
    $('ab-table').replaceChildren(...rows);
  }


  return {fmt, mean, get, HEADLINE, ENERGY, card, cards, row, waterfallTable, abTable};
})();

// fleetsim studio: the page's state (a scenario, or an uploaded one, and a list of `--set`
// overrides), kept in the URL so that a shared link reproduces the numbers; each change asks
// `fleetsim serve` for `fleetsim run --json` of that state (streamed progress, cancellable) and
// redraws every view from it (charts.js). window.fleetsimStudio is the hook the browser tests use.
'use strict';

(function () {
  const $ = id => document.getElementById(id);

  // The knobs a planner turns: each is one `--set` key (blank: the scenario's own value).
  const KNOBS = [
    {key: 'cluster.gpu', label: 'GPU', preset: 'gpus'},
    {key: 'cluster.node', label: 'node', preset: 'nodes'},
    {key: 'cluster.gpus', label: 'GPU count', type: 'number', min: 1},
    {key: 'cluster.fabric', label: 'fabric', preset: 'fabrics'},
    {key: 'cluster.fabric.oversubscription', label: 'oversubscription', type: 'number', min: 1, step: 0.5},
    {key: 'cluster.cooling', label: 'cooling', preset: 'cooling'},
    {key: 'facility.site', label: 'site', preset: 'sites'},
    {key: 'failures.profile', label: 'failure profile', preset: 'failures'},
    {key: 'failures.rate_scale', label: 'failure rate ×', type: 'number', min: 0, step: 0.1},
    {key: 'checkpoint.interval', label: 'checkpoint every', placeholder: 'daly, 30 min'},
    {key: 'checkpoint.async', label: 'async checkpoint', choices: ['true', 'false']},
    {key: 'checkpoint.storage_bandwidth', label: 'ckpt write bw', placeholder: '(scenario) e.g. 2 TB/s'},
    {key: '@in_memory', label: 'ckpt in memory', choices: ['on']},
    {key: 'recovery.spare_nodes', label: 'hot spare nodes', type: 'number', min: 0},
    {key: 'workload.model', label: 'model', preset: 'workloads'},
    {key: 'workload.training.train_tokens', label: 'tokens', placeholder: '15T (0T: run.duration)'},
    {key: 'workload.parallel.tensor_model_parallel_size', label: 'TP', type: 'number', min: 1},
    {key: 'workload.parallel.pipeline_model_parallel_size', label: 'PP', type: 'number', min: 1},
    {key: 'workload.parallel.context_parallel_size', label: 'CP', type: 'number', min: 1},
    {key: 'workload.training.precision', label: 'precision', choices: ['bf16', 'fp16', 'fp8']},
    {key: 'software', label: 'software stack', preset: 'software'},
    {key: 'facility.power_timeline', label: 'power timeline', choices: ['on', 'off']},
    {key: 'run.replications', label: 'replications', type: 'number', min: 1},
    {key: 'run.duration', label: 'run duration', placeholder: '54 d'},
  ];
  const KNOB_KEYS = new Set(KNOBS.map(k => k.key));

  const state = {scenario: '', upload: null, uploadName: '', sets: [], plan: ''};
  let inMemory = false;

  // Checkpoints to peers' host memory (Gemini, SOSP'23), as fleetsim plan's checkpoint option
  // in_memory defines it (sim/config/plan_schema.cpp): write and load bandwidth = nodes x 25 GB/s,
  // a 1 s blocking snapshot. Written out as the three overrides, so the URL and the CLI carry them.
  function applyInMemory() {
    const keys = ['checkpoint.storage_bandwidth', 'checkpoint.load_bandwidth', 'checkpoint.write_time'];
    if (!inMemory) return;
    const inputs = current ? current.inputs : null;
    const gpus = Number(valueOf('cluster.gpus')) || (inputs ? inputs.gpus : 0);
    const perNode = inputs ? inputs.gpus_per_node : 8;
    if (!gpus) return;
    const nodes = Math.ceil(gpus / perNode);
    setValue(keys[0], (nodes * 25) + ' GB/s');
    setValue(keys[1], (nodes * 25) + ' GB/s');
    setValue(keys[2], '1 s');
  }
  let catalog = null, current = null, pinned = null, inflight = null, generation = 0;
  let lastRedrawMs = null, lastError = null;
  const listeners = [];

  // ---- the state in the URL: ?scenario=NAME&set=K=V&set=... (an upload cannot travel in a link)
  function readUrl() {
    const q = new URLSearchParams(location.search);
    state.scenario = q.get('scenario') || '';
    state.sets = q.getAll('set');
    state.plan = q.get('plan') || '';
  }
  function query(withPlan) {
    const q = new URLSearchParams();
    if (!state.upload && state.scenario) q.set('scenario', state.scenario);
    for (const s of state.sets) q.append('set', s);
    if (withPlan && state.plan) q.set('plan', state.plan);
    return q.toString();
  }
  function writeUrl() { history.replaceState(null, '', location.pathname + '?' + query(true)); }

  // A key goes before the overrides of its own sub-keys (cluster.fabric before
  // cluster.fabric.oversubscription): a later preset name would replace them (the loader applies
  // --set in order).
  function setValue(key, value) {
    state.sets = state.sets.filter(s => s.split('=')[0] !== key);
    if (value === '' || value === null || value === undefined) return;
    const child = state.sets.findIndex(s => s.split('=')[0].startsWith(key + '.'));
    if (child < 0) state.sets.push(key + '=' + value);
    else state.sets.splice(child, 0, key + '=' + value);
  }
  function valueOf(key) {
    const s = state.sets.find(x => x.split('=')[0] === key);
    return s === undefined ? '' : s.slice(key.length + 1);
  }

  // ---- controls
  function buildControls() {
    const box = $('knobs');
    for (const k of KNOBS) {
      if (k.preset && !(catalog.presets[k.preset] || []).length) continue;  // e.g. no software stacks yet
      const label = document.createElement('label');
      label.dataset.key = k.key;
      const name = document.createElement('span');
      name.className = 'name';
      name.textContent = k.label;
      label.appendChild(name);
      let input;
      if (k.preset || k.choices) {
        input = document.createElement('select');
        const options = [''].concat(k.preset ? catalog.presets[k.preset] : k.choices);
        for (const o of options) {
          const opt = document.createElement('option');
          opt.value = o;
          opt.textContent = o === '' ? '(scenario)' : o;
          input.appendChild(opt);
        }
      } else {
        input = document.createElement('input');
        input.type = k.type || 'text';
        if (k.min !== undefined) input.min = k.min;
        if (k.step !== undefined) input.step = k.step;
        input.placeholder = k.placeholder || '(scenario)';
      }
      input.id = 'knob-' + k.key;
      input.dataset.key = k.key;
      input.addEventListener('change', () => {
        if (k.key === '@in_memory') {
          inMemory = input.value === 'on';
          if (!inMemory) ['checkpoint.storage_bandwidth', 'checkpoint.load_bandwidth', 'checkpoint.write_time'].forEach(x => setValue(x, ''));
        } else {
          setValue(k.key, input.value.trim());
        }
        applyInMemory();
        changed();
      });
      label.appendChild(input);
      box.appendChild(label);
      const err = document.createElement('div');
      err.className = 'error';
      err.dataset.errorFor = k.key;
      box.appendChild(err);
      if (k.key === 'workload.parallel.context_parallel_size') {
        const b = document.createElement('button');
        b.type = 'button';
        b.id = 'best-layout';
        b.textContent = 'Best layout (fleetsim search)';
        b.addEventListener('click', bestLayout);
        box.appendChild(b);
      }
    }
    const sel = $('scenario');
    for (const n of catalog.scenarios) {
      const o = document.createElement('option');
      o.value = n; o.textContent = n;
      sel.appendChild(o);
    }
    sel.addEventListener('change', () => { state.scenario = sel.value; state.upload = null; $('upload').value = ''; $('upload-name').textContent = ''; changed(); });
    $('upload').addEventListener('change', () => {
      const f = $('upload').files[0];
      if (!f) return;
      if (f.size > 256 * 1024) { showErrors({message: 'the file is larger than the 256 kB upload limit', key: 'scenario'}); return; }
      f.text().then(t => { state.upload = t; state.uploadName = f.name; $('upload-name').textContent = 'uploaded: ' + f.name; changed(); });
    });
    const planSel = $('plan');
    for (const n of catalog.plans) {
      const o = document.createElement('option');
      o.value = n; o.textContent = n;
      planSel.appendChild(o);
    }
    if (state.plan) planSel.value = state.plan;
    $('run-plan').addEventListener('click', () => { state.plan = planSel.value; writeUrl(); runPlan(); });
    $('apply-extra').addEventListener('click', () => {
      const lines = $('extra-sets').value.split('\n').map(l => l.trim()).filter(Boolean);
      state.sets = state.sets.filter(s => KNOB_KEYS.has(s.split('=')[0])).concat(lines);
      changed();
    });
    // Every run view offers the two ways to reproduce it (the same command and file for all).
    document.querySelectorAll('.view').forEach(view => {
      if (view.id === 'view-plan') return;
      const bar = document.createElement('span');
      bar.className = 'view-tools';
      for (const [text, act] of [['copy CLI', () => copy($('cli').value)], ['YAML', downloadYaml]]) {
        const b = document.createElement('button');
        b.type = 'button';
        b.textContent = text;
        b.addEventListener('click', act);
        bar.appendChild(b);
      }
      view.querySelector('h2').appendChild(bar);
    });
    $('copy-cli').addEventListener('click', () => copy($('cli').value));
    $('share').addEventListener('click', () => copy(location.href));
    $('download-yaml').addEventListener('click', downloadYaml);
    $('pin').addEventListener('click', () => { if (current) { pinned = current; $('unpin').hidden = false; redraw(); } });
    $('unpin').addEventListener('click', () => { pinned = null; $('unpin').hidden = true; redraw(); });
    $('cancel').addEventListener('click', () => { if (inflight) inflight.abort(); });
  }

  function syncControls() {
    $('scenario').value = state.upload ? '' : (state.scenario || catalog.default_scenario);
    for (const k of KNOBS) {
      const input = document.getElementById('knob-' + k.key);
      if (input) input.value = k.key === '@in_memory' ? (inMemory ? 'on' : '') : valueOf(k.key);
    }
    $('extra-sets').value = state.sets.filter(s => !KNOB_KEYS.has(s.split('=')[0])).join('\n');
  }

  function copy(text) {
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).catch(() => {});
    status('copied: ' + text.slice(0, 80));
  }

  // ---- talking to the server: NDJSON lines, {"progress"} while it runs, then the answer
  async function stream(url, body, onProgress) {
    if (inflight) inflight.abort();
    const ctl = new AbortController();
    inflight = ctl;
    $('cancel').hidden = false;
    try {
      const res = await fetch(url, {method: body === null ? 'GET' : 'POST', body: body === null ? undefined : body,
                                    headers: body === null ? {} : {'Content-Type': 'text/yaml'}, signal: ctl.signal});
      if (!res.body) throw new Error('no answer');
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let buf = '', answer = null;
      for (;;) {
        const {value, done} = await reader.read();
        if (value) buf += decoder.decode(value, {stream: true});
        let nl;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (!line) continue;
          const msg = JSON.parse(line);
          if (msg.progress) onProgress(msg.progress.done, msg.progress.total);
          else answer = msg;
        }
        if (done) break;
      }
      if (!answer && buf.trim()) answer = JSON.parse(buf);
      if (!answer) throw new Error('the server closed the connection without an answer (HTTP ' + res.status + ')');
      return answer;
    } finally {
      if (inflight === ctl) { inflight = null; $('cancel').hidden = true; $('progress').hidden = true; }
    }
  }

  function progress(done, total) {
    const p = $('progress');
    p.hidden = false;
    p.max = total; p.value = done;
    status('running: ' + done + ' / ' + total);
  }
  function status(text) { $('status').textContent = text; }

  function changed() {
    writeUrl();
    syncControls();
    return run();
  }

  async function run() {
    const gen = ++generation;
    const t0 = performance.now();
    status('running…');
    try {
      const answer = await stream('/api/run?' + query(false), state.upload, progress);
      if (gen !== generation) return;
      if (answer.error) { showErrors(answer.error); status('error'); return; }
      current = answer;
      showErrors(null);
      redraw();
      lastRedrawMs = performance.now() - t0;
      status('done in ' + Math.round(lastRedrawMs) + ' ms (' + answer.result.replications + ' replications)');
    } catch (e) {
      if (gen !== generation) return;
      if (e.name === 'AbortError') { status('cancelled'); return; }
      showErrors({message: String(e.message || e), key: ''});
      status('error');
    } finally {
      if (gen === generation) listeners.splice(0).forEach(f => f());
    }
  }

  // The loader's own message beside the field whose key it names (else beside "Any key").
  function showErrors(err) {
    lastError = err;
    document.querySelectorAll('[data-error-for]').forEach(e => { e.textContent = ''; });
    document.querySelectorAll('.has-error').forEach(e => e.classList.remove('has-error'));
    $('banner').hidden = !err;
    if (!err) return;
    $('banner').textContent = err.message;
    let key = err.key || '';
    const setKey = (err.file || '').startsWith('--set ') ? err.file.slice(6).split('=')[0] : '';
    let target = null;
    for (const k of [setKey, key]) {
      if (!k) continue;
      let probe = k;
      while (probe && !target) {
        target = document.querySelector('[data-error-for="' + CSS.escape(probe) + '"]');
        probe = probe.includes('.') ? probe.slice(0, probe.lastIndexOf('.')) : '';
      }
      if (target) break;
    }
    if (!target && (key === 'scenario' || key === 'extends' || (err.file || '').includes('uploaded'))) target = document.querySelector('[data-error-for="scenario"]');
    if (!target && key === 'plan') target = document.querySelector('[data-error-for="plan"]');
    if (!target) target = document.querySelector('[data-error-for="*"]');
    target.textContent = err.message;
    const label = target.previousElementSibling;
    if (label && label.tagName === 'LABEL') label.classList.add('has-error');
  }

  // ---- the views (views.js draws the cards and tables, charts.js the figures)
  const {fmt, HEADLINE, ENERGY, cards, waterfallTable, abTable, row} = FleetsimViews;

  function redraw() {
    if (!current) return;
    const r = current.result, a = pinned ? pinned.result : null;
    $('cli').value = current.cli + (state.upload ? '   # uploaded.yaml: the file you uploaded' : '');
    $('headline-note').textContent = r.description + ' · ' + r.replications + ' replications, seed ' + r.seed;
    cards('cards', HEADLINE, r);
    cards('energy-cards', ENERGY, r);
    waterfallTable(r);
    $('view-ab').hidden = !a;
    if (a) abTable(a, r);
    $('iteration-note').textContent = fmt(r.step.iteration_time_s) + ' s, ' + r.step.tier + ' tier';
    $('ettr-note').textContent = 'ETTR ' + fmt(r.run.ettr.mean) + (r.run.ettr_interval ? ' [' + fmt(r.run.ettr_interval.lo) + ', ' + fmt(r.run.ettr_interval.hi) + ']' : '');
    if (!FleetsimCharts.available()) { $('banner').hidden = false; $('banner').textContent = 'Chart.js is not installed on the server (apt-get install libjs-chart.js): numbers only.'; return; }
    FleetsimCharts.drawWaterfall(r, a);
    FleetsimCharts.drawIteration(r, a);
    FleetsimCharts.drawEttr(r, a);
    const power = current.series && current.series.power_steady;
    $('view-power').hidden = !power;
    if (power) FleetsimCharts.drawPower(current.series);
  }

  // ---- plan view
  async function runPlan() {
    if (!state.plan) return;
    $('plan-note').textContent = 'evaluating…';
    try {
      const answer = await stream('/api/plan?plan=' + encodeURIComponent(state.plan), null, (d, t) => {
        progress(d, t); $('plan-note').textContent = d + ' / ' + t + ' designs';
      });
      if (answer.error) { showErrors(Object.assign({key: 'plan'}, answer.error, {key: 'plan'})); $('plan-note').textContent = 'error'; return; }
      const p = answer.result.plan;
      $('plan-note').textContent = p.description + ' · ' + p.counts.evaluated + ' designs evaluated · ' + answer.cli;
      $('copy-plan-cli').hidden = false;
      $('copy-plan-cli').onclick = () => copy(answer.cli);
      if (FleetsimCharts.available()) FleetsimCharts.drawPlan(answer.result);
      const rows = [row(['design', 'GPU × count', 'days', 'cost (M USD)', 'peak MW', 'ETTR'], 'th')];
      for (const i of p.pareto) {
        const d = p.designs.find(x => x.index === i);
        const r = row(['#' + i + (i === p.cheapest_meeting_deadline ? ' (cheapest in deadline)' : ''), d.gpu + ' × ' + d.gpus,
                       fmt(d.days), fmt(d.cost_usd / 1e6), fmt(d.peak_facility_mw), fmt(d.ettr)]);
        if (i === p.cheapest_meeting_deadline) r.className = 'marked';
        rows.push(r);
      }
      $('plan-table').replaceChildren(...rows);
      status('plan done');
    } catch (e) {
      $('plan-note').textContent = e.name === 'AbortError' ? 'cancelled' : String(e.message || e);
    }
  }

  // ---- best layout: `fleetsim search`'s top layout as overrides
  async function bestLayout() {
    status('searching layouts…');
    const res = await fetch('/api/search?' + query(false), {method: state.upload ? 'POST' : 'GET', body: state.upload || undefined});
    const j = await res.json();
    if (j.error) { showErrors(j.error); return; }
    const layoutKeys = new Set(j.set.map(s => s.split('=')[0]));
    state.sets = state.sets.filter(s => !layoutKeys.has(s.split('=')[0])).concat(j.set);
    changed();
  }

  async function downloadYaml() {
    const res = await fetch('/api/yaml?' + query(false), {method: state.upload ? 'POST' : 'GET', body: state.upload || undefined});
    if (!res.ok) { const j = await res.json(); showErrors(Object.assign({}, j.error, {key: j.error.key || 'yaml'})); return; }
    const blob = await res.blob();
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = 'fleetsim-studio.yaml';
    document.body.appendChild(a);
    a.click();
    a.remove();
  }

  // ---- start
  async function start() {
    readUrl();
    catalog = await (await fetch('/api/catalog')).json();
    const initial = await (await fetch('/api/start')).json();
    if (!state.scenario && !location.search && initial.scenario) state.scenario = initial.scenario;
    if (!location.search && initial.upload) { state.upload = initial.upload; state.uploadName = initial.name; }
    buildControls();
    syncControls();
    if (state.upload) $('upload-name').textContent = 'opened: ' + state.uploadName;
    await run();
    if (state.plan) runPlan();
  }

  // The browser tests' hook: set a knob (or any key) as a user would, wait for the redraw.
  window.fleetsimStudio = {
    ready: null,
    idle() { return inflight ? new Promise(r => listeners.push(r)) : Promise.resolve(); },
    async setKnob(key, value) {
      const input = document.getElementById('knob-' + key);
      const done = new Promise(r => listeners.push(r));
      if (input) { input.value = value; input.dispatchEvent(new Event('change')); }
      else { setValue(key, value); changed(); }
      await done;
      return this.snapshot();
    },
    snapshot() {
      const values = {};
      document.querySelectorAll('[data-key][data-value]').forEach(e => { values[e.dataset.key] = Number(e.dataset.value); });
      const errors = {};
      document.querySelectorAll('[data-error-for]').forEach(e => { if (e.textContent) errors[e.dataset.errorFor] = e.textContent; });
      return {values, errors, redrawMs: lastRedrawMs, error: lastError, cli: current ? current.cli : null,
              url: location.href, charts: FleetsimCharts.available()};
    },
  };
  window.fleetsimStudio.ready = new Promise(resolve => {
    document.addEventListener('DOMContentLoaded', () => start().then(resolve, e => { showErrors({message: String(e), key: ''}); resolve(); }));
  });
})();

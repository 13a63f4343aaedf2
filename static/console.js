// The console's live parts: the dashboard refreshes its figures, chart,
// instances and auto-rate decisions every 3 s from
// /admin/queue/<slug>/live (the auto-rate page its decisions from the
// same), the instances page from /admin/instances/live, without a
// reload.  Everything else in the console works without JavaScript.
'use strict';

// A duration of s seconds in words, the rule of the server's first paint
// (isotime.c iso_duration_text()): "-" unknown (null or < 0), "under 1
// min" below 60 s, "59 min", "7 h 38 min" ("1 h": zero minutes left
// out), from a day on "1 d 3 h" ("1 d"); every unit floored.
function durationText(s) {
	if (s === null || s === undefined || !Number.isFinite(s) || s < 0)
		return '-';
	s = Math.floor(s);
	if (s < 60)
		return 'under 1 min';
	if (s < 3600)
		return `${Math.floor(s / 60)} min`;
	if (s < 86400) {
		const h = Math.floor(s / 3600), m = Math.floor(s % 3600 / 60);
		return m === 0 ? `${h} h` : `${h} h ${m} min`;
	}
	const d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600);
	return h === 0 ? `${d} d` : `${d} d ${h} h`;
}

// Unix ms as "YYYY-MM-DD HH:MM:SS UTC" ("-" for 0), as the server writes
// it (page-audit.c console_utc_text()).
function utcText(ms) {
	if (!ms)
		return '-';
	const t = new Date(ms).toISOString();
	return `${t.slice(0, 10)} ${t.slice(11, 19)} UTC`;
}

// The two instance tables (#instances, #instance-rates) redrawn from
// the live JSON's instances at the database's now, cell for cell as
// console-instances.c writes them.
function instanceTables(list, nowMs) {
	const body = document.querySelector('#instances tbody');
	const rates = document.getElementById('instance-rates');
	function cell(tr, v, cls, tag) {
		const td = document.createElement(tag ?? 'td');
		if (cls)
			td.className = cls;
		if (tag === 'th')
			td.scope = 'row';
		td.textContent = v;
		tr.appendChild(td);
	}
	function when(ms) {
		return `${utcText(ms)} (${durationText(ms > 0 ?
		    Math.trunc((nowMs - ms) / 1000) : -1)} ago)`;
	}
	if (body !== null)
		body.replaceChildren(...list.map((i) => {
			const tr = document.createElement('tr');
			cell(tr, i.leader ? `${i.kind} (leader)` : i.kind);
			cell(tr, i.host);
			cell(tr, String(i.pid), 'num');
			cell(tr, String(i.workers), 'num');
			cell(tr, String(i.busy), 'num');
			cell(tr, Number(i.cpuPct).toFixed(1), 'num');
			cell(tr, String(i.rssKb), 'num');
			cell(tr, when(i.startedMs));
			cell(tr, when(i.seenMs));
			return tr;
		}));
	if (rates === null)
		return;
	const kinds = rates.dataset.kinds.split(' ');
	rates.tBodies[0].replaceChildren(...list.map((i) => {
		const tr = document.createElement('tr');
		cell(tr, `${i.kind} ${i.host} ${i.pid}`, null, 'th');
		for (const k of kinds)
			cell(tr, Number(i.requestsPerSecond?.[k] ?? 0)
			    .toFixed(2), 'num');
		return tr;
	}));
}

// The auto-rate decision log (#autorate-log) redrawn from the live
// JSON's autorateLog, cell for cell as console-autorate.c writes it.
function autorateLog(list) {
	const body = document.querySelector('#autorate-log tbody');
	if (body === null || !Array.isArray(list))
		return;
	body.replaceChildren(...list.map((e) => {
		const tr = document.createElement('tr');
		const cells = [utcText(e.atMs), e.kind,
		    e.dryRun ? `${e.action} (dry run)` : e.action,
		    e.rule ?? '-', `${e.state}: ${e.reason}`,
		    `${e.rateBefore} \u2192 ${e.rateAfter}`,
		    e.responseTimeMs === null ||
		    e.responseTimeMs === undefined ? '-' :
		    `${e.responseTimeMs} ms`];
		cells.forEach((v, i) => {
			const td = document.createElement('td');
			if (i >= 5)
				td.className = 'num';
			td.textContent = String(v);
			tr.appendChild(td);
		});
		return tr;
	}));
}

// Every 3 s (the first after first ms): fetch el's data-live JSON and
// hand it to apply, then mark el's data-refreshed with the time; a
// failed fetch is tried again at the next tick.  apply returns true to
// stop (nothing more will change).
function live(el, first, apply) {
	async function refresh() {
		try {
			const r = await fetch(el.dataset.live, {
			    credentials: 'same-origin',
			    headers: { Accept: 'application/json' } });
			if (r.ok) {
				const end = apply(await r.json());
				el.dataset.refreshed = String(Date.now());
				if (end === true)
					return;
			}
		} catch (e) {
			// Try again at the next tick.
		}
		setTimeout(refresh, 3000);
	}
	setTimeout(refresh, first);
}

// The instances page: its tables.
(function () {
	const sec = document.getElementById('instance-list');
	if (sec !== null)
		live(sec, 3000, (d) => instanceTables(d.instances, d.nowMs));
})();

// The auto-rate page: its decision log, from the dashboard's live JSON.
(function () {
	const sec = document.getElementById('autorate-live');
	if (sec !== null)
		live(sec, 3000, (d) => autorateLog(d.autorateLog));
})();

// The queue list: its numbers from /admin/live.
(function () {
	const list = document.getElementById('queue-list');
	if (list === null)
		return;
	live(list, 3000, (d) => {
		for (const q of d.queues) {
			const tr = list.querySelector(
			    `tr[data-slug="${q.slug}"]`);
			if (tr === null)
				continue;
			for (const td of tr.querySelectorAll('td[data-col]')) {
				const k = td.dataset.col;
				td.textContent = k === 'state' ? (q.active ?
				    'running' : 'paused') : String(q[k]);
			}
		}
	});
})();

(function () {
	const dash = document.getElementById('dashboard');
	if (dash === null)
		return;
	const chartEl = document.getElementById('chart');
	let plot = null;

	function text(id, v) {
		const el = document.getElementById(id);
		if (el !== null)
			el.textContent = v === null || v === undefined ?
			    '-' : String(v);
	}

	function size() {
		return { width: Math.max(280, chartEl.clientWidth),
		    height: 280 };
	}

	function draw(s) {
		const data = [s.t, s.waiting, s.inflow];
		if (typeof uPlot === 'undefined')
			return;
		if (plot === null) {
			plot = new uPlot({
				...size(),
				series: [
					{},
					{ label: 'Waiting', stroke: '#0b57d0',
					    width: 2 },
					{ label: 'Inflow / min',
					    stroke: '#b3261e', width: 2,
					    scale: 'inflow' },
				],
				axes: [{}, { label: 'waiting' },
				    { side: 1, scale: 'inflow',
				    label: 'inflow / min',
				    grid: { show: false } }],
			}, data, chartEl);
			window.addEventListener('resize',
			    () => plot.setSize(size()));
		} else
			plot.setData(data);
		chartEl.dataset.points = String(s.t.length);
		chartEl.dataset.lastWaiting = s.waiting.length ?
		    String(s.waiting[s.waiting.length - 1]) : '';
	}

	live(dash, 0, (d) => {
		text('waiting', d.waiting);
		text('inflow', d.inflowPerMinute);
		text('rate', d.ratePerMinute);
		text('rate-cap', d.rateCap);
		text('wait', durationText(d.estimatedWaitSeconds));
		text('serving', d.serving);
		text('issued', d.issued);
		text('state', d.stateText);
		draw(d.series);
		instanceTables(d.instances, d.nowMs);
		autorateLog(d.autorateLog);
	});
})();

// The fairness report's chart: admissions per minute against the
// configured rate, from the rows of its text alternative (#fair-minutes,
// data-minute in Unix ms, data-admitted, data-rate).
(function () {
	const chartEl = document.getElementById('fair-chart');
	if (chartEl === null || typeof uPlot === 'undefined')
		return;
	const rows = document.querySelectorAll('#fair-minutes tbody tr');
	const num = (v) => v === 'null' ? null : Number(v);
	const data = [[], [], []];
	for (const tr of rows) {
		data[0].push(Number(tr.dataset.minute) / 1000);
		data[1].push(num(tr.dataset.admitted));
		data[2].push(num(tr.dataset.rate));
	}
	function size() {
		return { width: Math.max(280, chartEl.clientWidth),
		    height: 280 };
	}
	const plot = new uPlot({
		...size(),
		series: [
			{},
			{ label: 'Admitted / min', stroke: '#0b57d0',
			    width: 2 },
			{ label: 'Configured rate / min', stroke: '#b3261e',
			    width: 2, dash: [6, 4] },
		],
		axes: [{}, { label: 'per minute' }],
	}, data, chartEl);
	window.addEventListener('resize', () => plot.setSize(size()));
	chartEl.dataset.points = String(data[0].length);
})();

// The scheduled opening's countdown on the dashboard (#opens-in): the
// time left in words (durationText()), every second, from what the
// server computed at the database's clock when it wrote the page.
(function () {
	const el = document.getElementById('opens-in');
	if (el === null)
		return;
	const end = Date.now() + Number(el.dataset.leftMs);
	function tick() {
		const left = end - Date.now();
		if (left <= 0) {
			el.textContent = 'opened (reload for the draw)';
			return;
		}
		el.textContent = durationText(Math.ceil(left / 1000));
		setTimeout(tick, 1000);
	}
	tick();
})();

// A load test's page (#loadtest): its figures, its per-second table
// (#lt-seconds, the chart's text alternative) and its chart of
// throughput (answers per second) against p95 latency, refreshed from
// data-live while the run is pending or running.
(function () {
	const sec = document.getElementById('loadtest');
	if (sec === null)
		return;
	const chartEl = document.getElementById('lt-chart');
	const body = document.querySelector('#lt-seconds tbody');
	let plot = null;
	const ms = (v) => v.toFixed(2);

	function text(id, v) {
		const el = document.getElementById(id);
		if (el !== null)
			el.textContent = String(v);
	}
	function size() {
		return { width: Math.max(280, chartEl.clientWidth),
		    height: 280 };
	}
	function rows() {
		const data = [[], [], []];
		for (const tr of body.rows) {
			const c = tr.cells;
			data[0].push(Number(c[0].textContent));
			data[1].push(Number(c[2].textContent) +
			    Number(c[3].textContent));
			data[2].push(Number(c[5].textContent));
		}
		return data;
	}
	function draw() {
		const data = rows();
		chartEl.dataset.points = String(data[0].length);
		if (typeof uPlot === 'undefined')
			return;
		if (plot === null) {
			plot = new uPlot({
				...size(),
				scales: { x: { time: false } },
				series: [
					{ label: 'Second' },
					{ label: 'Answers / s',
					    stroke: '#0b57d0', width: 2 },
					{ label: 'p95 (ms)', stroke: '#b3261e',
					    width: 2, scale: 'ms' },
				],
				axes: [{ label: 'second of the run' },
				    { label: 'answers / s' },
				    { side: 1, scale: 'ms', label: 'p95 ms',
				    grid: { show: false } }],
			}, data, chartEl);
			window.addEventListener('resize',
			    () => plot.setSize(size()));
		} else
			plot.setData(data);
	}
	draw();
	if (!['pending', 'running'].includes(
	    document.getElementById('lt-status').textContent))
		return;
	live(sec, 1000, (d) => {
		text('lt-status', d.status);
		text('lt-achieved', d.achievedRatePerSecond.toFixed(1));
		text('lt-sent', d.sent);
		text('lt-errors', (100 * d.errorRate).toFixed(2));
		text('lt-p50', ms(d.latencyMs.p50));
		text('lt-p95', ms(d.latencyMs.p95));
		text('lt-p99', ms(d.latencyMs.p99));
		text('lt-flag', d.flagged ? d.flagReason : 'none');
		const ended = !['pending', 'running'].includes(d.status);
		body.replaceChildren(...d.series.map((s) => {
			const tr = document.createElement('tr');
			for (const v of [s.second, s.sent, s.ok, s.errors,
			    ms(s.p50Ms), ms(s.p95Ms), ms(s.p99Ms)]) {
				const td = document.createElement('td');
				td.className = 'num';
				td.textContent = String(v);
				tr.append(td);
			}
			return tr;
		}));
		draw();
		// Ended: the page's tables (served by) come with a reload.
		return ended;
	});
})();

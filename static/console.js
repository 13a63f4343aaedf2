// The console's live parts: the dashboard refreshes its figures, chart
// and instances every 3 s from /admin/queue/<slug>/live, without a
// reload.  Everything else in the console works without JavaScript.
'use strict';

// The queue list: its numbers every 3 s from /admin/live.
(function () {
	const list = document.getElementById('queue-list');
	if (list === null)
		return;
	async function refresh() {
		try {
			const r = await fetch(list.dataset.live, {
			    credentials: 'same-origin',
			    headers: { Accept: 'application/json' } });
			if (r.ok) {
				const d = await r.json();
				for (const q of d.queues) {
					const tr = list.querySelector(
					    `tr[data-slug="${q.slug}"]`);
					if (tr === null)
						continue;
					for (const td of tr.querySelectorAll(
					    'td[data-col]')) {
						const k = td.dataset.col;
						td.textContent = k === 'state' ?
						    (q.active ? 'running' :
						    'paused') : String(q[k]);
					}
				}
				list.dataset.refreshed = String(Date.now());
			}
		} catch (e) {
			// Try again at the next tick.
		}
		setTimeout(refresh, 3000);
	}
	setTimeout(refresh, 3000);
})();

(function () {
	const dash = document.getElementById('dashboard');
	if (dash === null)
		return;
	const url = dash.dataset.live;
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

	function instances(list) {
		const body = document.querySelector('#instances tbody');
		if (body === null)
			return;
		body.replaceChildren(...list.map((i) => {
			const tr = document.createElement('tr');
			for (const [v, num] of [[i.kind], [i.host],
			    [i.pid, 1], [i.workers, 1], [i.busy, 1],
			    [i.cpuPct, 1], [i.rssKb, 1],
			    [JSON.stringify(i.requestsPerSecond)]]) {
				const td = document.createElement('td');
				if (num)
					td.className = 'num';
				td.textContent = String(v);
				tr.appendChild(td);
			}
			return tr;
		}));
	}

	async function refresh() {
		try {
			const r = await fetch(url, { credentials: 'same-origin',
			    headers: { Accept: 'application/json' } });
			if (r.ok) {
				const d = await r.json();
				text('waiting', d.waiting);
				text('inflow', d.inflowPerMinute);
				text('rate', d.ratePerMinute);
				text('rate-cap', d.rateCap);
				text('wait', d.estimatedWaitSeconds);
				text('serving', d.serving);
				text('issued', d.issued);
				text('state', d.active ? 'Running' : 'Paused');
				draw(d.series);
				instances(d.instances);
				dash.dataset.refreshed = String(Date.now());
			}
		} catch (e) {
			// Try again at the next tick.
		}
		setTimeout(refresh, 3000);
	}
	refresh();
})();

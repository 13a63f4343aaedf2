/*
 * waiting-room.js - the hosted waiting room's client.  Takes a number
 * (or the one the gateway handed over in the URL fragment), keeps number
 * and ticket together in sessionStorage so a reload keeps the place,
 * polls the status at the interval the server asks for, fetches the
 * token when admitted and goes on to the shop.  Text is set with
 * textContent only.
 */
(function () {
	'use strict';

	var room = document.getElementById('room');
	var slug = room.getAttribute('data-slug');
	var ret = room.getAttribute('data-return') || '';
	var base = '/queue/' + encodeURIComponent(slug);
	var key = 'aditus-queue:' + slug;
	/* Texts in the page's language, from the server (data-m-*). */
	function msg(name) {
		return room.getAttribute('data-m-' + name) || '';
	}
	var mine = null;
	var unknown = 0;	/* 404s in a row for our number */
	/*
	 * Each server process caches the queue for up to a second, so two
	 * answers in a row may come from processes a rate change apart: show
	 * the highest serving number seen, which is never wrong for long.
	 */
	var seen = 0;

	function text(id, v) {
		document.getElementById(id).textContent = String(v);
	}

	function load() {
		try {
			var v = JSON.parse(sessionStorage.getItem(key));
			if (v && Number.isSafeInteger(v.number) && v.number > 0 &&
			    typeof v.ticket === 'string')
				return v;
		} catch (e) { /* unreadable: take a new number */ }
		return null;
	}

	function save(v) {
		try {
			sessionStorage.setItem(key, JSON.stringify(v));
		} catch (e) { /* storage full or off: the place lasts this page */ }
	}

	function forget() {
		try { sessionStorage.removeItem(key); } catch (e) { }
		mine = null;
	}

	/* The gateway hands over "#number=N&ticket=T"; drop it from the URL. */
	function handedOver() {
		var h = location.hash.replace(/^#/, '');
		if (h === '')
			return null;
		history.replaceState(null, '', location.pathname + location.search);
		var p = new URLSearchParams(h);
		var n = Number(p.get('number')), t = p.get('ticket');
		if (Number.isSafeInteger(n) && n > 0 && t)
			return { number: n, ticket: t, start: null };
		return null;
	}

	/* Append name=value to url's query, before any fragment. */
	function appendParam(url, name, value) {
		var hash = '', i = url.indexOf('#');
		if (i >= 0) {
			hash = url.slice(i);
			url = url.slice(0, i);
		}
		var sep = url.indexOf('?') < 0 ? '?' :
		    /[?&]$/.test(url) ? '' : '&';
		return url + sep + name + '=' + encodeURIComponent(value) + hash;
	}

	function minutes(s) {
		/* null while paused: no estimate. */
		if (s === null || s === undefined)
			return '\u2013';
		if (s < 60)
			return s + ' s';
		return Math.ceil(s / 60) + ' min';
	}

	function show(s) {
		seen = Math.max(seen, s.serving);
		if (mine.start === null || mine.start === undefined) {
			/* Handed over by the gateway: progress counts from here. */
			mine.start = s.serving;
			save(mine);
		}
		text('number', mine.number);
		text('serving', seen);
		text('ahead', s.ahead);
		text('wait', s.admitted ? '0 s' : minutes(s.estimatedWaitSeconds));
		var span = mine.number - (mine.start || 0);
		var done = seen - (mine.start || 0);
		var pct = s.admitted ? 100 : span > 0 ?
		    Math.max(0, Math.min(99, Math.floor(100 * done / span))) : 0;
		document.getElementById('bar').style.width = pct + '%';
		document.getElementById('progress').setAttribute('aria-valuenow',
		    String(pct));
		if (s.active === false)
			text('state', msg('paused'));
		else if (s.admitted)
			text('state', msg('turn'));
		else
			text('state', msg('queued'));
	}

	function later(fn, seconds) {
		setTimeout(fn, Math.max(1, seconds || 2) * 1000);
	}

	function join() {
		fetch(base + '/join', { method: 'POST' }).then(function (res) {
			if (res.status === 423) {
				text('state', msg('paused-join'));
				later(join, 10);
				return null;
			}
			if (!res.ok)
				throw new Error('join ' + res.status);
			return res.json();
		}).then(function (j) {
			if (j === null)
				return;
			mine = { number: j.number, ticket: j.ticket, start: j.serving };
			save(mine);
			show(j);
			if (j.admitted)
				enter();
			else
				later(poll, j.retryAfterSeconds);
		}).catch(function () {
			text('state', msg('busy'));
			later(join, 5);
		});
	}

	function poll() {
		fetch(base + '/status?number=' + mine.number).then(function (res) {
			if (res.status === 404) {
				/*
				 * Unknown.  Just issued numbers can be briefly
				 * unknown to a busy server: ask twice more before
				 * taking a new number.
				 */
				if (++unknown <= 2) {
					later(poll, 2);
					return null;
				}
				forget();
				join();
				return null;
			}
			unknown = 0;
			if (!res.ok)
				throw new Error('status ' + res.status);
			return res.json();
		}).then(function (s) {
			if (s === null)
				return;
			show(s);
			if (s.admitted)
				enter();
			else
				later(poll, s.retryAfterSeconds);
		}).catch(function () {
			text('state', msg('trouble'));
			later(poll, 5);
		});
	}

	function enter() {
		var body = { number: mine.number, ticket: mine.ticket };
		if (ret !== '')
			body['return'] = ret;
		fetch(base + '/token', {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify(body)
		}).then(function (res) {
			if (res.status === 425) {
				later(poll, 2);
				return null;
			}
			if (res.status === 403) {
				forget();
				join();
				return null;
			}
			if (!res.ok)
				throw new Error('token ' + res.status);
			return res.json();
		}).then(function (g) {
			if (g === null)
				return;
			if (!g.targetUrl) {
				text('state', msg('admitted'));
				return;
			}
			location.replace(appendParam(g.targetUrl,
			    'aditus_queue_token', g.token));
		}).catch(function () {
			later(enter, 3);
		});
	}

	var handed = handedOver();
	mine = load();
	if (mine === null && handed !== null) {
		mine = handed;
		save(mine);
	}
	if (mine === null)
		join();
	else {
		text('number', mine.number);
		poll();
	}
}());

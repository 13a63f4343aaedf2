/*
 * waiting-room.js - the hosted waiting room's client.  Takes a number
 * (or the one the gateway handed over in the URL fragment), keeps number
 * and ticket together in sessionStorage so a reload keeps the place,
 * polls the queue's poll document (state.json, served by the web server
 * itself, the same for every visitor) at the interval it asks for and
 * computes position, admission and an honest wait range from it (falling
 * back to /status when the document is missing or stale, in the latter
 * case at a random moment within the interval), fetches the
 * token when its number is reached (the server checks) or takes the one
 * the join answer carries, and goes on to the shop.  Every URL is built
 * from the page root's data-base.  Text is set with textContent only.
 * When the queue has proof of work on (data-pow), the number is taken
 * only with a solved challenge (static/pow.js, in a Web Worker), the
 * progress shown, and what is wrong said when the browser cannot solve
 * (no secure context); a challenge about to expire is exchanged for a
 * fresh one.
 *
 * Timers: pages that opened together, or saw the same error, must not
 * come back in waves.  Every wait is drawn at random: a normal poll
 * within +-30 % of the server's interval, the first poll after taking a
 * number anywhere from 30 % to 130 % of it (pages that joined in the
 * same second fall out of step at once); after errors an exponential
 * back-off within +-30 % (from the poll interval, at least 2 s, doubling
 * per error in a row, capped at 60 s: an outage never makes a page ask
 * more often than it did), and a 503's Retry-After is a minimum, with up
 * to 30 % added.
 */
(function () {
	'use strict';

	var room = document.getElementById('room');
	var slug = room.getAttribute('data-slug');
	var ret = room.getAttribute('data-return') || '';
	var base = (room.getAttribute('data-base') || '') + '/queue/' +
	    encodeURIComponent(slug);
	var lang = room.getAttribute('data-lang') || 'en';
	var accent = room.getAttribute('data-accent') || '';
	if (/^#[0-9a-f]{6}$/.test(accent))
		document.documentElement.style.setProperty('--accent', accent);
	/* A document older than this (by the server's Date) is stale. */
	var STALE_MS = 5000, STALE = {};
	/* Rates seen (ratePerMinute) and serving numbers, for the range. */
	var rates = [], marks = [];
	var WINDOW_MS = 10 * 60 * 1000;
	var key = 'aditus-queue:' + slug;
	/* Texts in the page's language, from the server (data-m-*). */
	function msg(name) {
		return room.getAttribute('data-m-' + name) || '';
	}
	var mine = null;
	var unknown = 0;	/* 404s in a row for our number */
	var errors = 0;		/* failed requests in a row */
	var interval = 2;	/* the server's last polling interval, s */
	var BACKOFF_S = 2, BACKOFF_MAX_S = 60, SPREAD = 0.3;
	/*
	 * Each server process caches the queue for up to a second, so two
	 * answers in a row may come from processes a rate change apart: show
	 * the highest serving number seen, which is never wrong for long.
	 */
	var seen = 0;

	/*
	 * A figure by its id and, on a queue's custom template, every
	 * element that shows it (data-aq-live): a template may leave out
	 * any of them.
	 */
	function text(id, v) {
		var el = document.getElementById(id);
		if (el !== null)
			el.textContent = String(v);
		var live = room.querySelectorAll('[data-aq-live="' + id + '"]');
		for (var i = 0; i < live.length; i++)
			live[i].textContent = String(v);
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

	function clock(t, secs) {
		try {
			return new Intl.DateTimeFormat(lang, secs ?
			    { hour: '2-digit', minute: '2-digit',
			    second: '2-digit' } :
			    { hour: '2-digit', minute: '2-digit' })
			    .format(new Date(t));
		} catch (e) {
			return new Date(t).toTimeString().slice(0, secs ? 8 : 5);
		}
	}

	/* Remember rate r and serving at now; drop what is too old. */
	function remember(r, serving) {
		var now = Date.now();
		if (typeof r === 'number' && r > 0)
			rates.push({ t: now, v: r });
		marks.push({ t: now, v: serving });
		while (rates.length > 1 && now - rates[0].t > WINDOW_MS)
			rates.shift();
		while (marks.length > 2 && now - marks[0].t > WINDOW_MS)
			marks.shift();
	}

	/*
	 * The wait range [lo, hi] in seconds for remaining numbers to go:
	 * from the fastest and slowest of the rates seen lately and of the
	 * pace the serving number actually moved at (over 20 s or more).
	 * A steady rate gives one figure; changes widen the range, and it
	 * shrinks with the numbers still to go.  null without any rate.
	 */
	function range(remaining, fallback) {
		var lo = Infinity, hi = 0, i;
		for (i = 0; i < rates.length; i++) {
			lo = Math.min(lo, rates[i].v);
			hi = Math.max(hi, rates[i].v);
		}
		if (marks.length >= 2) {
			var a = marks[0], b = marks[marks.length - 1];
			if (b.t - a.t >= 20000 && b.v > a.v && hi > 0) {
				var seen = (b.v - a.v) * 60000 / (b.t - a.t);
				lo = Math.min(lo, seen);
				hi = Math.max(hi, seen);
			}
		}
		if (hi === 0)
			return typeof fallback === 'number' ?
			    [fallback, fallback] : null;
		return [remaining * 60 / hi, remaining * 60 / lo];
	}

	function showRange(r) {
		if (r === null) {
			text('wait', '\u2013');
			text('entry', '\u2013');
			return;
		}
		var lo = Math.max(1, Math.floor(r[0] / 60));
		var hi = Math.ceil(r[1] / 60);
		if (r[1] <= 0)
			text('wait', '0 s');
		else if (r[1] < 60)
			text('wait', msg('minute-less'));
		else if (hi <= lo)
			text('wait', msg('minute-one').replace('{n}', String(hi)));
		else
			text('wait', msg('minutes').replace('{lo}', String(lo))
			    .replace('{hi}', String(hi)));
		var now = Date.now();
		var x = clock(now + r[0] * 1000), y = clock(now + r[1] * 1000);
		text('entry', x === y ? x : x + '\u2013' + y);
	}

	/* The connection is fine again, or not: the calm notice. */
	function online(ok) {
		var el = document.getElementById('offline');
		if (el !== null)
			el.hidden = ok;
		var t = document.getElementById('updated');
		if (ok && t !== null) {
			t.textContent = clock(Date.now(), true);
			t.setAttribute('datetime', new Date().toISOString());
		}
	}

	function minutes(s) {
		/* null while paused: no estimate. */
		if (s === null || s === undefined)
			return '\u2013';
		if (s < 60)
			return s + ' s';
		return Math.ceil(s / 60) + ' min';
	}

	/* The note under the figures: what a reload does for this visitor. */
	function note(name) {
		var el = document.getElementById('note');
		if (el !== null)
			el.textContent = msg(name);
	}

	/*
	 * The admission position: the number itself, except in a random
	 * order (the server says where the number stands: join, /status).
	 */
	function place() {
		return Number.isSafeInteger(mine.position) && mine.position > 0 ?
		    mine.position : mine.number;
	}

	/* Whether the number lies in the random order of document doc. */
	function inRandom(doc) {
		return typeof doc.randomFrom === 'number' &&
		    mine.number >= doc.randomFrom &&
		    (typeof doc.randomTo !== 'number' ||
		    mine.number < doc.randomTo);
	}

	/*
	 * s: what the server said (join, /status) or what the page computed
	 * from the queue's document (fromDoc).  The server's answer carries
	 * the position exactly when it differs from the number's order:
	 * kept, or dropped when the answer has none.
	 */
	function show(s, fromDoc) {
		var p = Number.isSafeInteger(s.position) && s.position > 0 ?
		    s.position : undefined;
		if (!fromDoc && p !== mine.position) {
			mine.position = p;
			save(mine);
		}
		seen = Math.max(seen, s.serving);
		if (mine.start === null || mine.start === undefined) {
			/* Handed over by the gateway: progress counts from here. */
			mine.start = s.serving;
			save(mine);
		}
		text('number', mine.number);
		text('serving', seen);
		text('ahead', s.ahead);
		/* Place in line: 1 is next (a custom template's position). */
		text('position', s.admitted ? 0 : s.ahead + 1);
		/*
		 * The rate: the document's, else (join, /status) the one the
		 * server's estimate implies: it rounds the wait up to a
		 * second, so only a wait of a minute or more tells the rate
		 * closely enough (within 2 %).
		 */
		var rate = s.ratePerMinute;
		if (typeof rate !== 'number' && !s.admitted &&
		    typeof s.estimatedWaitSeconds === 'number' &&
		    s.estimatedWaitSeconds >= 60 && place() > s.serving)
			rate = (place() - s.serving) * 60 /
			    s.estimatedWaitSeconds;
		remember(rate, s.serving);
		/*
		 * No estimate while paused or on hold (the server may send
		 * null).
		 */
		if (s.admitted)
			showRange([0, 0]);
		else if (s.active === false || s.onHold === true)
			showRange(null);
		else
			showRange(range(place() - seen,
			    s.estimatedWaitSeconds));
		online(true);
		var span = place() - (mine.start || 0);
		var done = seen - (mine.start || 0);
		var pct = s.admitted ? 100 : span > 0 ?
		    Math.max(0, Math.min(99, Math.floor(100 * done / span))) : 0;
		var bar = document.getElementById('bar');
		var prog = document.getElementById('progress');
		if (bar !== null)
			bar.style.width = pct + '%';
		if (prog !== null)
			prog.setAttribute('aria-valuenow', String(pct));
		note('note-kept');
		if (s.active === false)
			text('state', msg('paused'));
		else if (s.admitted)
			text('state', msg('turn'));
		else if (s.onHold === true)
			text('state', msg('hold'));
		else
			text('state', msg('queued'));
		opening(s);
	}

	/*
	 * Scheduled opening and presence.  Before the opening the status
	 * carries opensInSeconds: the state line counts down (nobody is
	 * admitted before).  While the number waits, a heartbeat every
	 * BEAT_S seconds (+-30 %, drawn once per page) tells the server this
	 * page is still open, for abandonment detection (204, ignored when
	 * it is off).  It runs on its own interval and request object, apart
	 * from the polling's timers, and its failure changes nothing.
	 */
	var BEAT_S = 20, waiting = true, beat = null;
	function opening(s) {
		waiting = !s.admitted;
		if (typeof s.opensInSeconds === 'number' && s.opensInSeconds > 0)
			text('state', (msg('opens') || 'Opens in') + ' ' +
			    minutes(s.opensInSeconds));
		if (beat === null && waiting)
			beat = setInterval(heartbeat, spread(BEAT_S, SPREAD));
	}
	function heartbeat() {
		var x;

		if (!waiting || mine === null) {
			clearInterval(beat);
			beat = null;
			return;
		}
		x = new XMLHttpRequest();
		x.open('POST', base + '/heartbeat');
		x.setRequestHeader('Content-Type', 'application/json');
		x.send(JSON.stringify({ number: mine.number,
		    ticket: mine.ticket }));
	}

	/*
	 * seconds (at least 1) in ms, drawn uniformly from
	 * [1 - below, 1 + SPREAD) times it.
	 */
	function spread(seconds, below) {
		var s = Math.max(1, seconds || 2);
		return Math.round(s * 1000 *
		    (1 - below + (below + SPREAD) * Math.random()));
	}

	/* Run fn after about seconds. */
	function later(fn, seconds) {
		errors = 0;
		setTimeout(fn, spread(seconds, SPREAD));
	}

	/* The next poll, at about the server's interval. */
	function nextPoll(seconds, first) {
		interval = Math.max(1, seconds || 2);
		errors = 0;
		setTimeout(poll, spread(interval, first ? 1 - SPREAD : SPREAD));
	}

	/*
	 * The Retry-After of res in seconds (delta form), or 0 when absent
	 * or not a plain number.
	 */
	function retryAfter(res) {
		var v = res.headers.get('Retry-After');
		return v !== null && /^[0-9]{1,6}$/.test(v) ? Number(v) : 0;
	}

	/*
	 * Run fn again after a failure: exponential back-off from base
	 * seconds (at least BACKOFF_S) with jitter, and never sooner than the
	 * server's Retry-After (minRetry seconds).
	 */
	function backoff(fn, minRetry, base) {
		var step = Math.min(BACKOFF_MAX_S,
		    Math.max(BACKOFF_S, base || 0) * Math.pow(2, errors));
		var ms = spread(step, SPREAD);

		errors++;
		if (minRetry > 0)
			ms = Math.max(ms, Math.round(minRetry * 1000 *
			    (1 + SPREAD * Math.random())));
		setTimeout(fn, ms);
	}

	/* An error that carries the response's Retry-After. */
	function failure(what, res) {
		var e = new Error(what + ' ' + res.status);
		e.retryAfter = retryAfter(res);
		return e;
	}

	/* On to the shop with token tok; target is the shop's URL. */
	function go(target, tok) {
		location.replace(appendParam(target, 'aditus_queue_token', tok));
	}

	/* The proof of work's bits ("" while the queue has none). */
	var powBits = room.getAttribute('data-pow') || '';
	var staticUrl = (document.querySelector('script[src$="/pow.js"]') ||
	    {}).src || '';

	/*
	 * Solve challenge c (a /pow or 428 answer) and join with it.  A
	 * challenge within 30 s of its end is dropped for a fresh one
	 * (a slow device never posts an expired one).
	 */
	function solveAndJoin(c) {
		if (!c || typeof c.challenge !== 'string') {
			powJoin();
			return;
		}
		var left = (c.expiresInSeconds || 300) - 30;
		var s = window.AditusPow.solve(c.challenge, c.bits, {
			workerUrl: staticUrl,
			progress: function (f) {
				text('state', msg('pow-working').replace('{p}',
				    String(Math.floor(f * 100))));
			}
		});
		var timer = setTimeout(function () {
			s.cancel();
			powJoin();
		}, Math.max(1, left) * 1000);
		text('state', msg('pow-working').replace('{p}', '0'));
		s.promise.then(function (nonce) {
			clearTimeout(timer);
			if (nonce === null)
				return;
			joinWith({ pow: { challenge: c.challenge,
			    nonce: nonce } });
		}, function (e) {
			clearTimeout(timer);
			text('state', msg(e.reason === 'insecure' ?
			    'pow-insecure' : 'pow-failed'));
			room.setAttribute('data-pow-state', e.reason);
		});
	}

	/* Fetch a challenge, then solve it and join. */
	function powJoin() {
		fetch(base + '/pow', { cache: 'no-store' }).then(function (res) {
			if (!res.ok)
				throw failure('pow', res);
			return res.json();
		}).then(function (c) {
			if (c.enabled === false) {
				powBits = '';
				joinWith(null);
				return;
			}
			solveAndJoin(c);
		}).catch(function (e) {
			text('state', msg('busy'));
			online(false);
			backoff(powJoin, e.retryAfter || 0);
		});
	}

	/* Take a number: with the proof of work first when the queue has it. */
	function join() {
		if (powBits !== '' && window.AditusPow)
			powJoin();
		else
			joinWith(null);
	}

	function joinWith(body) {
		var opts = { method: 'POST' };
		if (body !== null) {
			opts.headers = { 'Content-Type': 'application/json' };
			opts.body = JSON.stringify(body);
		}
		fetch(base + '/join', opts).then(function (res) {
			if (res.status === 423) {
				text('state', msg('paused-join'));
				note('note-none');
				later(join, 10);
				return null;
			}
			if (res.status === 428) {
				/* The answer carries a fresh challenge. */
				powBits = powBits || '1';
				return res.json().then(function (c) {
					solveAndJoin(c);
					return null;
				});
			}
			if (!res.ok)
				throw failure('join', res);
			return res.json();
		}).then(function (j) {
			if (j === null)
				return;
			room.setAttribute('data-pow-state', 'done');
			mine = { number: j.number, ticket: j.ticket, start: j.serving };
			save(mine);
			show(j);
			if (!j.admitted)
				nextPoll(j.retryAfterSeconds, true);
			else if (typeof j.token === 'string' && j.token !== '' &&
			    (ret !== '' || typeof j.targetUrl === 'string' &&
			    j.targetUrl !== ''))
				/*
				 * Admitted at once, token in the answer: no second
				 * request.  The return URL was checked by the server
				 * when it rendered this page.
				 */
				go(ret !== '' ? ret : j.targetUrl, j.token);
			else
				enter();
		}).catch(function (e) {
			text('state', msg('busy'));
			online(false);
			backoff(join, e.retryAfter || 0);
		});
	}

	/*
	 * The polling interval for a computed status, as the server's
	 * retryAfterSeconds would be (adm_retry_after()): a tenth of the
	 * wait, 2 to 30 s; 10 s while paused or on hold.
	 */
	function pollEvery(s) {
		if (s.active === false || s.onHold === true)
			return 10;
		return Math.min(30, Math.max(2,
		    Math.floor(s.estimatedWaitSeconds / 10)));
	}

	/*
	 * Poll the queue's document; position and admission are computed
	 * here.  Missing: ask /status instead.  Stale (the pool's master
	 * cannot reach the database, or is gone): ask /status too, but at a
	 * random moment within the poll interval, not at once: every page
	 * whose poll falls in an outage meets the stale document, and asking
	 * at once would double the requests of exactly those seconds.
	 */
	function poll() {
		fetch(base + '/state.json', { cache: 'no-store' })
		    .then(function (res) {
			if (!res.ok)
				return null;
			var d = Date.parse(res.headers.get('Date') || '');
			return res.json().then(function (doc) {
				if (typeof doc.serving !== 'number' ||
				    typeof doc.updatedAt !== 'number')
					return null;
				if (!isNaN(d) && d - doc.updatedAt > STALE_MS)
					return STALE;
				return doc;
			});
		}).then(function (doc) {
			if (doc === STALE) {
				setTimeout(pollStatus,
				    Math.floor(Math.random() * interval * 1000));
				return;
			}
			/*
			 * A pre-queue number: its drawn position from /status;
			 * so too a number of a random order whose position
			 * this page does not know yet.
			 */
			if (doc === null || (typeof doc.opensAt === 'number' &&
			    (typeof doc.preQueue !== 'number' ||
			    mine.number <= doc.preQueue)) ||
			    (inRandom(doc) &&
			    !Number.isSafeInteger(mine.position))) {
				pollStatus();
				return;
			}
			/*
			 * A position the document does not account for (a
			 * document older than the order, or one ended before
			 * this number): the server says which holds.
			 */
			if (!inRandom(doc) && mine.position !== undefined &&
			    mine.position !== mine.number) {
				pollStatus();
				return;
			}
			var left = place() - doc.serving;
			var s = {
				serving: doc.serving,
				ahead: Math.max(0, left - 1),
				admitted: left <= 0,
				active: doc.active,
				onHold: doc.onHold === true,
				ratePerMinute: doc.ratePerMinute,
				estimatedWaitSeconds: doc.active &&
				    doc.onHold !== true ?
				    Math.ceil(Math.max(0, left) * 60 /
				    doc.ratePerMinute) : null
			};
			show(s, true);
			if (s.admitted)
				enter();
			else
				nextPoll(Math.max(doc.refreshSeconds || 0,
				    pollEvery(s)), false);
		}).catch(function () {
			pollStatus();
		});
	}

	function pollStatus() {
		fetch(base + '/status?number=' + mine.number).then(function (res) {
			if (res.status === 404) {
				/*
				 * Unknown.  Just issued numbers can be briefly
				 * unknown to a busy server: ask twice more before
				 * taking a new number.
				 */
				if (++unknown <= 2) {
					later(pollStatus, 2);
					return null;
				}
				forget();
				join();
				return null;
			}
			unknown = 0;
			if (!res.ok)
				throw failure('status', res);
			return res.json();
		}).then(function (s) {
			if (s === null)
				return;
			show(s);
			if (s.admitted)
				enter();
			else
				nextPoll(s.retryAfterSeconds, false);
		}).catch(function (e) {
			online(false);
			backoff(poll, e.retryAfter || 0, interval);
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
				/* Not yet: Retry-After is a minimum here too. */
				errors = 0;
				setTimeout(poll, Math.max(spread(2, SPREAD),
				    Math.round(retryAfter(res) * 1000 *
				    (1 + SPREAD * Math.random()))));
				return null;
			}
			if (res.status === 403) {
				forget();
				join();
				return null;
			}
			if (!res.ok)
				throw failure('token', res);
			return res.json();
		}).then(function (g) {
			if (g === null)
				return;
			if (!g.targetUrl) {
				text('state', msg('admitted'));
				return;
			}
			go(g.targetUrl, g.token);
		}).catch(function (e) {
			backoff(enter, e.retryAfter || 0);
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
		note('note-kept');
		poll();
	}
}());

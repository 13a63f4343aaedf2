/*
 * embed.js - the shop-side script of an aditus-queue waiting room:
 *   <script src="https://QUEUE-HOST/queue/SLUG/embed.js" defer></script>
 * On each page load exactly one of three things happens:
 *  1. a valid pass in sessionStorage: nothing;
 *  2. the address carries aditus_queue_token: it is removed from the
 *     address bar, checked by the queue service (/verify) and stored as
 *     the pass; an invalid or expired one sends the visitor to the
 *     waiting room;
 *  3. no pass: a number is taken in the background (silent visitors
 *     count against the rate): admitted at once, the pass is stored and
 *     the visitor stays; otherwise the visitor goes to the waiting room
 *     with this page as return URL and the number and ticket in the URL
 *     fragment, keeping that place.  With the queue's proof of work on
 *     (the join answers 428), nobody passes silently: the visitor goes
 *     to the waiting room with this page as return URL, and the room
 *     solves the challenge and takes the number there.
 * Session renewal: when the queue says so (/info: sessionRenewal), a
 * pass is renewed (POST /renew) shortly before it expires - a tenth of
 * the session duration, 5 to 60 s - if the visitor was active since
 * it was last renewed (this page loaded, or a key, click, scroll or
 * touch), and the page is visible; an inactive visitor's pass is
 * renewed at the next activity while it is still valid.  Without
 * renewal the pass ends at its time.
 * Fail-open: when the service is down, slow or the queue unknown, the
 * script does nothing and the shop works untouched.
 */
(function () {
	'use strict';

	var TIMEOUT_MS = 3000;
	var s = document.currentScript;
	if (!s || !window.fetch || !window.sessionStorage)
		return;
	var m = /^(.*\/queue\/([a-z0-9][a-z0-9-]*))\/embed\.js(?:[?#].*)?$/
	    .exec(s.src);
	if (m === null)
		return;
	var base = m[1], slug = m[2], key = 'aditus-queue-pass:' + slug;

	function claims(tok) {
		try {
			var p = tok.split('.')[1].replace(/-/g, '+')
			    .replace(/_/g, '/');
			return JSON.parse(atob(p));
		} catch (e) {
			return null;
		}
	}

	function pass() {
		try {
			var v = JSON.parse(sessionStorage.getItem(key));
			if (v && typeof v.token === 'string' &&
			    typeof v.exp === 'number' && v.exp * 1000 > Date.now())
				return v;
		} catch (e) { /* none */ }
		return null;
	}

	/* renew: the queue renews sessions (true, false; unknown: absent). */
	function store(tok, exp, renew) {
		var v = { token: tok, exp: exp };
		if (typeof renew === 'boolean')
			v.renew = renew;
		try {
			sessionStorage.setItem(key, JSON.stringify(v));
		} catch (e) { /* storage off: asked again next page */ }
		return v;
	}

	/* fetch with a short timeout; rejects on any failure. */
	function timed(url, opts) {
		var ctl = window.AbortController ? new AbortController() : null;
		var t = setTimeout(function () { if (ctl) ctl.abort(); },
		    TIMEOUT_MS);
		opts = opts || {};
		if (ctl)
			opts.signal = ctl.signal;
		opts.credentials = 'omit';
		return fetch(url, opts).then(function (r) {
			clearTimeout(t);
			return r;
		}, function (e) {
			clearTimeout(t);
			throw e;
		});
	}

	function toRoom(hand) {
		location.assign(base + '?return=' +
		    encodeURIComponent(location.href) + (hand || ''));
	}

	/*
	 * Session renewal.  active: the visitor did something since the
	 * pass was last renewed (loading this page counts); due: the time
	 * to renew came while the visitor was idle.
	 */
	var active = true, due = false, timer = null, tried = 0;
	var RETRY_MS = 5000;	/* at most one renewal attempt in this */

	function renew() {
		var v = pass();
		due = false;
		if (v === null)
			return;		/* ended: the next page joins again */
		active = false;
		tried = Date.now();
		timed(base + '/renew', { method: 'POST', headers:
		    { 'content-type': 'application/json' },
		    body: JSON.stringify({ token: v.token }) })
		    .then(function (r) {
			if (r.status === 403)
				store(v.token, v.exp, false);
			else if (r.status >= 500)
				due = true;	/* the next activity tries again */
			return r.ok ? r.json() : null;
		}).then(function (j) {
			if (j !== null && typeof j.token === 'string' &&
			    typeof j.expiresAt === 'number')
				plan(store(j.token, j.expiresAt, true));
		}).catch(function () {
			/* Unreachable: the next activity tries again while the
			   pass lasts (fail-open: else it ends at its time). */
			due = true;
		});
	}

	function renewDue() {
		timer = null;
		if (active && !document.hidden)
			renew();
		else
			due = true;
	}

	/* Renew pass v shortly before its exp, if its queue renews. */
	function plan(v) {
		var c = claims(v.token), life, margin;

		if (v.renew !== true || c === null ||
		    typeof c.iat !== 'number')
			return;
		life = v.exp - c.iat;
		margin = Math.min(60, Math.max(5, Math.floor(life / 10)));
		if (margin >= life)
			margin = Math.max(1, Math.floor(life / 2));
		if (timer !== null)
			clearTimeout(timer);
		timer = setTimeout(renewDue, Math.max(0,
		    (v.exp - margin) * 1000 - Date.now()));
	}

	/* Keep pass v: learn whether its queue renews, then plan. */
	function keep(v) {
		if (v === null)
			return;
		if (typeof v.renew === 'boolean') {
			plan(v);
			return;
		}
		timed(base + '/info').then(function (r) {
			return r.ok ? r.json() : null;
		}).then(function (j) {
			var now = pass();
			if (j === null || now === null)
				return;
			plan(store(now.token, now.exp,
			    j.sessionRenewal === true));
		}).catch(function () { /* fail-open */ });
	}

	/* Activity: a renewal that is due goes now (spaced by RETRY_MS). */
	function seen() {
		active = true;
		if (due && !document.hidden && Date.now() - tried >= RETRY_MS)
			renew();
	}
	['keydown', 'pointerdown', 'scroll', 'touchstart'].forEach(
	    function (ev) {
		window.addEventListener(ev, seen, { passive: true,
		    capture: true });
	});
	document.addEventListener('visibilitychange', function () {
		if (!document.hidden && due && active &&
		    Date.now() - tried >= RETRY_MS)
			renew();
	});

	/* 1. A valid pass: nothing to do but keep it. */
	if (pass() !== null) {
		keep(pass());
		return;
	}

	/* 2. Back from the waiting room with a token. */
	var u = new URL(location.href);
	var tok = u.searchParams.get('aditus_queue_token');
	if (tok !== null) {
		u.searchParams.delete('aditus_queue_token');
		history.replaceState(history.state, '', u.pathname + u.search +
		    u.hash);
		timed(base + '/verify?token=' + encodeURIComponent(tok))
		    .then(function (r) {
			return r.ok ? r.json() : null;
		}).then(function (v) {
			if (v === null)
				return;		/* fail-open */
			if (v.valid === true)
				keep(store(tok, v.expiresAt));
			else
				toRoom('');
		}).catch(function () { /* fail-open */ });
		return;
	}

	/* 3. No pass: take a number in the background. */
	timed(base + '/join', { method: 'POST' }).then(function (r) {
		if (r.status === 428) {
			toRoom('');
			return null;
		}
		return r.ok ? r.json() : null;
	}).then(function (j) {
		if (j === null || typeof j.number !== 'number')
			return;		/* paused, unknown, busy: fail-open */
		if (j.admitted) {
			var c = typeof j.token === 'string' ? claims(j.token) :
			    null;
			if (c !== null && typeof c.exp === 'number')
				keep(store(j.token, c.exp));
			return;
		}
		toRoom('#number=' + j.number + '&ticket=' +
		    encodeURIComponent(j.ticket));
	}).catch(function () { /* fail-open */ });
}());

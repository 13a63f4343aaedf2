// aditus_gate.js - nginx + njs gate for a shop behind an aditus-queue
// waiting room: verifies the visitor's pass (an HS256 JWT) offline on
// every request (SPEC sections 5 and 6).
//
//  - ?aditus_queue_token=<jwt> valid: set the cookie aditus_queue (Secure
//    when the request is HTTPS, HttpOnly, SameSite=Lax, Path=/) and 302
//    to the same URL without the token;
//  - a valid aditus_queue cookie (every duplicate is tried, CASES C15):
//    on to the shop (internal redirect to @shop);
//  - otherwise: 302 to the waiting room, this URL as the return URL.
//
// Configuration (nginx variables, see aditus-gate.conf):
//   $aditus_secret  the queue's signing secret (keep the file 0600)
//   $aditus_queue   the queue's slug (the token's aud)
//   $aditus_room    the waiting room, e.g. https://queue.example/queue/sale
//
// Only HS256 is accepted; the signature is compared in constant time;
// iss must be "aditus-queue", aud the slug, exp in the future, nbf (if
// present) not in the future.
var crypto = require('crypto');

var COOKIE = 'aditus_queue';
var PARAM = 'aditus_queue_token';
var COOKIE_MAX = 8192;		/* bytes of the Cookie header looked at */
var TOKEN_MAX = 4096;

function b64json(s) {
	if (!/^[A-Za-z0-9_-]*$/.test(s))
		return null;
	try {
		return JSON.parse(Buffer.from(s, 'base64url').toString());
	} catch (e) {
		return null;
	}
}

/* Compare two strings without stopping at the first difference. */
function sameString(a, b) {
	var i, d = a.length ^ b.length;

	for (i = 0; i < a.length && i < b.length; i++)
		d |= a.charCodeAt(i) ^ b.charCodeAt(i);
	return d === 0;
}

/* Whether tok is a valid pass for queue aud at now (Unix seconds). */
function verify(tok, secret, aud, now) {
	if (typeof tok !== 'string' || tok.length > TOKEN_MAX)
		return false;
	var p = tok.split('.');
	if (p.length !== 3)
		return false;
	var h = b64json(p[0]), c = b64json(p[1]);
	if (h === null || c === null || typeof h !== 'object' ||
	    typeof c !== 'object' || h.alg !== 'HS256')
		return false;
	var mac = crypto.createHmac('sha256', secret)
	    .update(p[0] + '.' + p[1]).digest('base64url');
	if (!sameString(mac, p[2]))
		return false;
	if (c.iss !== 'aditus-queue' || c.aud !== aud)
		return false;
	if (typeof c.exp !== 'number' || c.exp <= now)
		return false;
	if (c.nbf !== undefined && (typeof c.nbf !== 'number' || c.nbf > now))
		return false;
	return true;
}

/*
 * Every value of cookie name in header h (RFC 6265 section 5.4 with the
 * rules of CASES C15): pairs split on ';', each on its first '=', pairs
 * without '=' skipped, whitespace trimmed, one pair of double quotes
 * stripped; at most COOKIE_MAX bytes looked at.
 */
function cookieValues(h, name) {
	var out = [], i, pair, eq, k, v;

	if (typeof h !== 'string')
		return out;
	h = h.slice(0, COOKIE_MAX).split(';');
	for (i = 0; i < h.length; i++) {
		pair = h[i];
		eq = pair.indexOf('=');
		if (eq < 0)
			continue;
		k = pair.slice(0, eq).trim();
		v = pair.slice(eq + 1).trim();
		if (v.length >= 2 && v[0] === '"' && v[v.length - 1] === '"')
			v = v.slice(1, -1);
		if (k === name && v !== '')
			out.push(v);
	}
	return out;
}

/* This request's URL without the token parameter. */
function cleanUrl(r) {
	var args = (r.variables.args || '').split('&').filter(function (a) {
		return a !== '' && a.split('=')[0] !== PARAM;
	});
	return r.variables.scheme + '://' + r.headersIn.Host + r.uri +
	    (args.length > 0 ? '?' + args.join('&') : '');
}

function toRoom(r) {
	r.return(302, r.variables.aditus_room + '?return=' +
	    encodeURIComponent(cleanUrl(r)));
}

function gate(r) {
	var secret = r.variables.aditus_secret;
	var aud = r.variables.aditus_queue;
	var now = Math.floor(Date.now() / 1000);
	var tok = r.args[PARAM], i, c;

	if (tok !== undefined) {
		if (Array.isArray(tok))
			tok = tok[0];
		if (!verify(tok, secret, aud, now)) {
			toRoom(r);
			return;
		}
		r.headersOut['Set-Cookie'] = COOKIE + '=' + tok +
		    '; Path=/; HttpOnly; SameSite=Lax' +
		    (r.variables.scheme === 'https' ? '; Secure' : '');
		r.return(302, cleanUrl(r));
		return;
	}
	c = cookieValues(r.headersIn.Cookie, COOKIE);
	for (i = 0; i < c.length; i++)
		if (verify(c[i], secret, aud, now)) {
			r.internalRedirect('@shop');
			return;
		}
	toRoom(r);
}

export default { gate, verify, cookieValues };

// test/http/console.mjs - helpers of the console tests (HTTP and
// browser): console users through aqueuectl (password on stdin), and a
// small client with a cookie jar that logs in and submits the console's
// forms with their CSRF token, either through nginx (fetch) or straight
// to a pool's FastCGI socket (to choose REMOTE_ADDR, HTTPS, ...).

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { env, fcgiRequest, fcgiParams } from './lib.mjs';

// ctlIn(input, ...args): aqueuectl with input on stdin; returns
// {status, stdout, stderr} (never throws).
export function ctlIn(input, ...args) {
	const parts = env.ctl.split(' ').filter((s) => s !== '');
	try {
		const stdout = execFileSync(parts[0],
		    [...parts.slice(1), ...args.map(String)],
		    { encoding: 'utf8', input,
		    stdio: ['pipe', 'pipe', 'pipe'] });
		return { status: 0, stdout, stderr: '' };
	} catch (e) {
		return { status: e.status, stdout: e.stdout ?? '',
		    stderr: e.stderr ?? '' };
	}
}

// addUser(name?, password?): a new console user; returns {name, password}.
export function addUser(name, password) {
	name ??= `u-${randomBytes(5).toString('hex')}`;
	password ??= `pw-${randomBytes(12).toString('hex')}`;
	const r = ctlIn(`${password}\n`, 'user', 'add', name);
	if (r.status !== 0)
		throw new Error(`user add ${name}: ${r.status} ${r.stderr}`);
	return { name, password };
}

// The value of name="csrf" in a page.
export function csrfOf(html) {
	const m = /name="csrf" value="([^"]*)"/.exec(html);
	return m === null ? null : m[1];
}

// A console client.  Over nginx by default; with {sock, addr, extra}
// straight to a FastCGI socket with REMOTE_ADDR addr and the extra
// parameters (e.g. HTTPS: 'on').
export class Client {
	constructor({ sock = null, addr = '127.0.0.1', extra = {} } = {}) {
		this.sock = sock;
		this.addr = addr;
		this.extra = extra;
		this.jar = new Map();
		this.setCookies = [];
	}

	cookieHeader() {
		return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
	}

	take(list) {
		this.setCookies = list;
		for (const c of list) {
			const [kv, ...attrs] = c.split(';');
			const i = kv.indexOf('=');
			const k = kv.slice(0, i).trim(), v = kv.slice(i + 1);
			if (attrs.some((a) => /^\s*max-age=0$/i.test(a)))
				this.jar.delete(k);
			else
				this.jar.set(k, v);
		}
	}

	// request(method, path, {form, headers}): {status, headers (a
	// function h(name)), text, json, location}.
	async request(method, path, { form = null, headers = {} } = {}) {
		const body = form === null ? '' :
		    new URLSearchParams(form).toString();
		const hdr = { ...headers };
		if (this.jar.size > 0)
			hdr.cookie = this.cookieHeader();
		if (form !== null)
			hdr['content-type'] =
			    'application/x-www-form-urlencoded';
		if (this.sock === null) {
			const res = await fetch(env.base + path, {
			    method, redirect: 'manual', headers: hdr,
			    body: form === null ? undefined : body });
			this.take(res.headers.getSetCookie());
			const text = await res.text();
			let json = null;
			try { json = JSON.parse(text); } catch { /* html */ }
			return { status: res.status, text, json,
			    h: (n) => res.headers.get(n),
			    location: res.headers.get('location') };
		}
		const p = {};
		for (const [k, v] of Object.entries(hdr))
			p[`HTTP_${k.toUpperCase().replace(/-/g, '_')}`] = v;
		if (form !== null) {
			p.CONTENT_TYPE = hdr['content-type'];
			p.CONTENT_LENGTH = String(Buffer.byteLength(body));
		}
		const r = await fcgiRequest({ sock: this.sock, stdin: body,
		    params: fcgiParams(method, path, { REMOTE_ADDR: this.addr,
		    ...p, ...this.extra }) });
		const sc = r.headers['set-cookie'];
		this.take(sc === undefined ? [] : [sc]);
		return { status: r.status, text: r.body, json: r.json,
		    h: (n) => r.headers[n.toLowerCase()] ?? null,
		    location: r.headers.location ?? null };
	}

	get(path, opts) { return this.request('GET', path, opts); }
	post(path, form, opts = {}) {
		return this.request('POST', path, { ...opts, form });
	}

	// login(user, password): GET the form (its token cookie), POST it.
	async login(user, password) {
		const page = await this.get('/admin/login');
		return this.post('/admin/login', { csrf: csrfOf(page.text),
		    user, password });
	}

	// The CSRF token of the session, from the queue list page.
	async csrf() {
		return csrfOf((await this.get('/admin/')).text);
	}
}

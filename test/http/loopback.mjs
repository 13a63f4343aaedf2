// test/http/loopback.mjs - requests through nginx from a real source
// address of the loopback range (Linux routes all of 127/8 to lo; the
// tests use 127.0.0.2-127.0.0.21), so that the web server passes that
// address as REMOTE_ADDR exactly as it would a client's; and a console
// client with a cookie jar on such an address.

import http from 'node:http';
import { env } from './lib.mjs';

// fromAddr(addr, method, path, {headers, body}): one request to the
// stack's nginx from source address addr.  Resolves {status, h(name),
// headers, text, json, ms} (ms: the time to the whole answer).
export function fromAddr(addr, method, path, { headers = {},
    body = null } = {}) {
	const u = new URL(env.base + path);
	const data = body === null ? null : Buffer.from(body);
	const hdr = { ...headers };
	if (data !== null)
		hdr['content-length'] = String(data.length);
	return new Promise((resolve, reject) => {
		const t0 = process.hrtime.bigint();
		const rq = http.request({ host: u.hostname, port: u.port,
		    path: u.pathname + u.search, method, headers: hdr,
		    localAddress: addr, agent: false }, (res) => {
			const chunks = [];
			res.on('data', (c) => chunks.push(c));
			res.on('end', () => {
				const text = Buffer.concat(chunks)
				    .toString('utf8');
				let json = null;
				try { json = JSON.parse(text); } catch { }
				resolve({ status: res.statusCode,
				    headers: res.headers,
				    h: (n) => {
					const v = res.headers[n.toLowerCase()];
					return v === undefined ? null :
					    Array.isArray(v) ? v.join(', ') : v;
				    },
				    text, json, ms: Number(
				    process.hrtime.bigint() - t0) / 1e6 });
			});
		});
		rq.on('error', reject);
		rq.setTimeout(20000, () => rq.destroy(new Error('timeout')));
		if (data !== null)
			rq.write(data);
		rq.end();
	});
}

// The loopback addresses of the tests: loop(i) is 127.0.0.(2 + i), for
// i from 0 to 19.
export const loop = (i) => `127.0.0.${2 + i}`;

// A console client on source address addr, with a cookie jar.
export class LoopClient {
	constructor(addr) {
		this.addr = addr;
		this.jar = new Map();
	}

	take(res) {
		let list = res.headers['set-cookie'] ?? [];
		if (!Array.isArray(list))
			list = [list];
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

	async request(method, path, form = null) {
		const headers = {};
		if (this.jar.size > 0)
			headers.cookie = [...this.jar]
			    .map(([k, v]) => `${k}=${v}`).join('; ');
		let body = null;
		if (form !== null) {
			body = new URLSearchParams(form).toString();
			headers['content-type'] =
			    'application/x-www-form-urlencoded';
		}
		const res = await fromAddr(this.addr, method, path,
		    { headers, body });
		this.take(res);
		return res;
	}

	// login(user, password): the form's token, then the POST.
	async login(user, password) {
		const page = await this.request('GET', '/admin/login');
		const m = /name="csrf" value="([^"]*)"/.exec(page.text);
		return this.request('POST', '/admin/login',
		    { csrf: m === null ? '' : m[1], user, password });
	}
}

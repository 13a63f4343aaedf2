// test/model/client.mjs - the model's two ways into the product: pool 1
// through nginx (node:http, keep-alive), pool 2 as raw FastCGI on its
// own socket (test/http/lib.mjs's fcgiRequest).  Every request resolves
// (never throws) to one answer record with the wall-clock times it was
// sent and received; a transport failure has status 0 and err set.

import http from 'node:http';
import { fcgiRequest, fcgiParams } from '../http/lib.mjs';

// The fetch metadata of a browser's top-level navigation.
export const NAVIGATE = Object.freeze({
	'sec-fetch-mode': 'navigate',
	'sec-fetch-dest': 'document',
	'sec-fetch-site': 'none',
	'sec-fetch-user': '?1',
	accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,' +
	    '*/*;q=0.8',
});

function jsonOrNull(text) {
	if (text === '' || (text[0] !== '{' && text[0] !== '['))
		return null;
	try {
		return JSON.parse(text);
	} catch {
		return null;
	}
}

// cgiName(header): the CGI parameter a web server passes header as.
function cgiName(h) {
	const l = h.toLowerCase();
	if (l === 'content-type')
		return 'CONTENT_TYPE';
	if (l === 'content-length')
		return 'CONTENT_LENGTH';
	return 'HTTP_' + l.toUpperCase().replace(/-/g, '_');
}

export class Client {
	// port: nginx on 127.0.0.1; sock2: pool 2's FastCGI socket.
	constructor({ port, sock2, timeoutMs = 10000 }) {
		this.port = port;
		this.sock2 = sock2;
		this.timeoutMs = timeoutMs;
		this.agent = new http.Agent({ keepAlive: true, maxSockets: 256,
		    maxFreeSockets: 64 });
	}

	close() {
		this.agent.destroy();
	}

	// send(pool, method, path, {headers, body}): one request; resolves
	// {pool, method, path, status, headers, text, json, tSend, tRecv,
	// err}.  headers are lower-cased; set-cookie is an array.
	send(pool, method, path, { headers = {}, body = null,
	    timeoutMs = this.timeoutMs } = {}) {
		const h = {};
		for (const [k, v] of Object.entries(headers))
			h[k.toLowerCase()] = v;
		const buf = body === null ? null : Buffer.from(body);
		if (buf !== null || method === 'POST')
			h['content-length'] = String(buf?.length ?? 0);
		const rec = { pool, method, path, status: 0, headers: {},
		    text: '', json: null, tSend: Date.now(), tRecv: 0,
		    err: null };
		const p = pool === 2 ? this.#fcgi(rec, h, buf, timeoutMs) :
		    this.#http(rec, h, buf, timeoutMs);
		return p.then(() => {
			rec.tRecv = Date.now();
			rec.json = jsonOrNull(rec.text);
			return rec;
		});
	}

	#http(rec, headers, buf, timeoutMs) {
		return new Promise((resolve) => {
			let done = false;
			const finish = (err) => {
				if (done)
					return;
				done = true;
				clearTimeout(timer);
				if (err) {
					rec.status = 0;
					rec.err = String(err.message ?? err);
				}
				resolve();
			};
			const rq = http.request({ host: '127.0.0.1',
			    port: this.port, method: rec.method, path: rec.path,
			    headers, agent: this.agent }, (res) => {
				const chunks = [];
				res.on('data', (d) => chunks.push(d));
				res.on('end', () => {
					rec.status = res.statusCode;
					const hs = {};
					for (const [k, v] of Object.entries(
					    res.headers))
						hs[k] = v;
					if (hs['set-cookie'] === undefined)
						hs['set-cookie'] = [];
					rec.headers = hs;
					rec.text = Buffer.concat(chunks)
					    .toString('utf8');
					finish(null);
				});
				res.on('error', (e) => finish(e));
				res.on('aborted', () =>
				    finish(new Error('response aborted')));
			});
			const timer = setTimeout(() => {
				rq.destroy(new Error(`timed out after ` +
				    `${timeoutMs} ms`));
			}, timeoutMs);
			rq.on('error', (e) => finish(e));
			if (buf !== null)
				rq.write(buf);
			rq.end();
		});
	}

	async #fcgi(rec, headers, buf, timeoutMs) {
		const extra = {};
		for (const [k, v] of Object.entries(headers))
			extra[cgiName(k)] = v;
		try {
			const r = await fcgiRequest({ sock: this.sock2,
			    timeoutMs, stdin: buf ?? '',
			    params: fcgiParams(rec.method, rec.path, extra) });
			rec.status = r.status;
			const hs = { ...r.headers };
			delete hs.status;
			hs['set-cookie'] = hs['set-cookie'] === undefined ? [] :
			    [hs['set-cookie']];
			rec.headers = hs;
			rec.text = r.body;
		} catch (e) {
			rec.status = 0;
			rec.err = String(e.message ?? e);
		}
	}
}

// nginxOwn503(rec): true when a 503 was written by nginx itself (the
// pool did not answer: its 502/504 mapped), not by the program; such a
// request may or may not have reached the program.
export function nginxOwn503(rec) {
	if (rec.status !== 503 || rec.pool !== 1)
		return false;
	if (rec.json !== null)
		return rec.json.retryAfterSeconds === undefined;
	return !/id="unavailable"/.test(rec.text);
}

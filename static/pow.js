/*
 * pow.js - the waiting room's proof of work: find a nonce such that
 * SHA-256(challenge + "." + nonce) begins with the challenge's number of
 * zero bits.  SHA-256 is the browser's own (WebCrypto,
 * crypto.subtle.digest), never a script's.  Loaded by the page, it
 * defines window.AditusPow.solve(); loaded as a Web Worker (the same
 * file), it searches there, so the page stays responsive.  When no
 * Worker can be started (a Content-Security-Policy without worker-src,
 * an old browser), the search runs on the page itself in short batches.
 * Without a secure context (plain http to a name that is not loopback)
 * WebCrypto is missing and solve() fails with reason "insecure", so
 * that the page can say what to do.
 */
(function (self) {
	'use strict';

	/* Digests in flight at once, and how often progress is told. */
	var BATCH = 256, PROGRESS_MS = 150;

	/* Leading zero bits of a digest (bits, never hex digits). */
	function zeroBits(buf) {
		var b = new Uint8Array(buf), n = 0, i, x;
		for (i = 0; i < b.length; i++) {
			if (b[i] === 0) {
				n += 8;
				continue;
			}
			for (x = b[i]; (x & 0x80) === 0; x <<= 1)
				n++;
			break;
		}
		return n;
	}

	/*
	 * Search nonces from start on, BATCH at a time, until one gives
	 * bits zero bits or stop() says so; progress(tried) now and then.
	 * Resolves the nonce (a decimal string), or null when stopped.
	 */
	function search(subtle, challenge, bits, start, progress, stop) {
		var enc = new TextEncoder(), next = start, tried = 0;
		var told = Date.now();

		function batch() {
			var list = [], i;
			if (stop())
				return Promise.resolve(null);
			for (i = 0; i < BATCH; i++)
				list.push(String(next + i));
			next += BATCH;
			return Promise.all(list.map(function (n) {
				return subtle.digest('SHA-256',
				    enc.encode(challenge + '.' + n));
			})).then(function (ds) {
				for (var k = 0; k < ds.length; k++)
					if (zeroBits(ds[k]) >= bits)
						return list[k];
				tried += BATCH;
				if (Date.now() - told >= PROGRESS_MS) {
					told = Date.now();
					progress(tried);
				}
				return batch();
			});
		}
		return batch();
	}

	/* Inside a Web Worker: {challenge, bits} in, progress and nonce out. */
	if (typeof self.WorkerGlobalScope !== 'undefined' &&
	    self instanceof self.WorkerGlobalScope) {
		self.onmessage = function (ev) {
			var d = ev.data || {};
			if (!self.crypto || !self.crypto.subtle) {
				self.postMessage({ type: 'error',
				    reason: 'insecure' });
				return;
			}
			search(self.crypto.subtle, String(d.challenge),
			    Number(d.bits), 0, function (t) {
				self.postMessage({ type: 'progress', tried: t });
			}, function () { return false; }).then(function (n) {
				self.postMessage({ type: 'done', nonce: n });
			}, function () {
				self.postMessage({ type: 'error',
				    reason: 'failed' });
			});
		};
		return;
	}

	/* A failure with a reason: "insecure" or "failed". */
	function failure(reason) {
		var e = new Error('proof of work: ' + reason);
		e.reason = reason;
		return e;
	}

	/*
	 * Solve challenge at bits.  opts: workerUrl (this file's URL),
	 * progress(fraction): the chance that a search of this length finds
	 * a nonce, 1 - exp(-tried / 2^bits), below 1.  Returns
	 * {promise, cancel()}: the promise resolves the nonce, or null
	 * after cancel(), and rejects with a reason ("insecure": no
	 * WebCrypto here; "failed").
	 */
	function solve(challenge, bits, opts) {
		var expect = Math.pow(2, bits), cancelled = false, worker = null;
		var settle = null;
		opts = opts || {};
		function told(t) {
			if (opts.progress)
				opts.progress(Math.min(0.99,
				    1 - Math.exp(-t / expect)));
		}
		var promise = new Promise(function (resolve, reject) {
			settle = resolve;
			if (!self.isSecureContext || !self.crypto ||
			    !self.crypto.subtle) {
				reject(failure('insecure'));
				return;
			}
			function here() {
				worker = null;
				search(self.crypto.subtle, challenge, bits, 0, told,
				    function () { return cancelled; })
				    .then(resolve, function () {
					reject(failure('failed'));
				    });
			}
			var started = false;
			try {
				worker = new Worker(opts.workerUrl);
			} catch (e) {
				here();
				return;
			}
			worker.onmessage = function (ev) {
				var d = ev.data || {};
				started = true;
				if (d.type === 'progress')
					told(d.tried);
				else if (d.type === 'done') {
					worker.terminate();
					resolve(d.nonce);
				} else if (d.type === 'error') {
					worker.terminate();
					if (d.reason === 'insecure')
						here();
					else
						reject(failure('failed'));
				}
			};
			/* Refused (e.g. worker-src 'none'): on the page. */
			worker.onerror = function (ev) {
				if (ev && ev.preventDefault)
					ev.preventDefault();
				if (worker !== null)
					worker.terminate();
				if (!started && !cancelled)
					here();
				else if (!cancelled)
					reject(failure('failed'));
			};
			worker.postMessage({ challenge: challenge, bits: bits });
		});
		return {
			promise: promise,
			cancel: function () {
				cancelled = true;
				if (worker !== null)
					worker.terminate();
				settle(null);
			}
		};
	}

	self.AditusPow = { solve: solve, zeroBits: zeroBits };
}(self));

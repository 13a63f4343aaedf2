// test/model/model.mjs - the randomized model run (started by
// test/model/run, which brings up the stack and passes its places).
//
// A seeded schedule drives the real stack: visitor actors (joins through
// every entry path on both pools, polls, tokens, heartbeats, JSON mode,
// leaving), one alternating observer per queue (status and info on pool
// 1 and pool 2 in turn), one operator (rate, pause/resume, secret
// rotation, claim window, abandonment, openings armed, moved and
// cancelled, through aqueuectl and the REST API) and one fault actor
// (kill -9 of a pool process or of the worker, the database stopped and
// continued, or restarted).  Every answer goes to the oracle
// (oracle.mjs); the visitor actors judge claims themselves.  The last
// line is "model: N operations, V violations (seed S)"; exit 0 only
// without violations, 1 with, 2 when the run itself could not be done.

import { execFile } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { createHmac, randomBytes } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { childPids } from '../http/lib.mjs';
import { Rng } from './prng.mjs';
import { checkAgainstScript } from './draw.mjs';
import { Client, NAVIGATE, nginxOwn503 } from './client.mjs';
import { Oracle, QueueState, LAG_MS } from './oracle.mjs';

// ---- arguments -----------------------------------------------------------

function parseArgs(argv) {
	const a = { seconds: 120, seed: null, actors: 48, stop: false,
	    var: null, port: null, sock2: null, root: null };
	for (let i = 0; i < argv.length; i++) {
		const k = argv[i];
		const val = () => {
			if (i + 1 >= argv.length)
				throw new Error(`${k} needs a value`);
			return argv[++i];
		};
		switch (k) {
		case '--seconds': a.seconds = Number(val()); break;
		case '--seed': a.seed = Number(val()); break;
		case '--actors': a.actors = Number(val()); break;
		case '--stop-on-first': a.stop = true; break;
		case '--var': a.var = val(); break;
		case '--port': a.port = Number(val()); break;
		case '--sock2': a.sock2 = val(); break;
		case '--root': a.root = val(); break;
		default: throw new Error(`unknown argument ${k}`);
		}
	}
	if (!(a.seconds > 0))
		throw new Error('--seconds must be a positive number');
	if (a.seed !== null && !(Number.isInteger(a.seed) && a.seed >= 0 &&
	    a.seed <= 0xffffffff))
		throw new Error('--seed must be an integer in [0, 2^32)');
	if (!(Number.isInteger(a.actors) && a.actors >= 1))
		throw new Error('--actors must be a positive integer');
	for (const k of ['var', 'port', 'sock2', 'root'])
		if (a[k] === null)
			throw new Error(`--${k} is required (test/model/run ` +
			    'passes it)');
	return a;
}

const A = (() => {
	try {
		return parseArgs(process.argv.slice(2));
	} catch (e) {
		console.log(`model: ${e.message}`);
		console.log('usage: test/model/run [--seconds S] [--seed N] ' +
		    '[--actors N] [--stop-on-first]');
		process.exit(2);
	}
})();
const SEED = A.seed ?? randomBytes(4).readUInt32BE(0);
const say = (s) => console.log(`model: ${s}`);
// (test/model/run has printed the seed first.)
if (A.seed === null)
	say(`seed ${SEED}`);

const ROOT = A.root, VAR = A.var;
const rng = new Rng(SEED);
const T0 = Date.now();
const DEADLINE = T0 + A.seconds * 1000;
let stopAll = false;
const stopping = () => stopAll || Date.now() >= DEADLINE;
const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
// nap(ms): sleep, but not past the end of the schedule.
const nap = (ms) => sleep(Math.min(ms, DEADLINE - Date.now()));
const rel = (t) => `+${((t - T0) / 1000).toFixed(1)}s`;

const client = new Client({ port: A.port, sock2: A.sock2 });
const oracle = new Oracle({ t0: T0, stopOnFirst: A.stop,
    logFile: `${VAR}/log/violations.log`,
    traceFile: process.env.AQ_MODEL_TRACES === '1' ?
    `${VAR}/log/traces.log` : null,
    onViolation: (v) => {
	if (A.stop && !stopAll) {
		say(`first violation (${v.kind}) at ${rel(v.t)}: stopping`);
		stopAll = true;
	}
} });

// Claim statistics of the visitor actors.
const claims = { ok: 0, refused: 0, unverified: 0, late: 0,
    expiryOk: 0, expiryOpen: 0, expiryUnverified: 0 };

// ---- the stack's processes ----------------------------------------------

function readPid(file) {
	try {
		const v = Number(readFileSync(file, 'utf8').trim());
		return Number.isInteger(v) && v > 0 ? v : null;
	} catch {
		return null;
	}
}

function cmdline(pid) {
	try {
		return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
		    .replace(/\0/g, ' ');
	} catch {
		return '';
	}
}

// ours(pid, ...words): pid runs and its command line has every word.
function ours(pid, ...words) {
	if (pid === null)
		return false;
	const c = cmdline(pid);
	return c !== '' && words.every((w) => c.includes(w));
}

const POOLS = {
	1: { pidFile: `${VAR}/run/aqueue-fcgi.pid`,
	    conf: `${VAR}/aqueue.conf` },
	2: { pidFile: `${VAR}/pool2/master.pid`,
	    conf: `${VAR}/pool2/aqueue.conf` },
};
const DB_PID = `${VAR}/db/mysqld.pid`;
const WORKER_PID = `${VAR}/pids/aqueue-worker.pid`;
let dbStoppedPid = null;

function dbPid() {
	const p = readPid(DB_PID);
	return ours(p, `${VAR}/db/my.cnf`) ? p : null;
}

// Whatever happens, a stopped database is continued.
function continueDb() {
	if (dbStoppedPid !== null) {
		try {
			process.kill(dbStoppedPid, 'SIGCONT');
		} catch {
			// gone
		}
		dbStoppedPid = null;
	}
}
process.on('exit', continueDb);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'])
	process.on(sig, () => {
		continueDb();
		console.log(`model: interrupted (${sig})`);
		process.exit(130);
	});

function run(cmd, args, timeoutMs = 120000) {
	return new Promise((resolve) => {
		const tStart = Date.now();
		execFile(cmd, args, { timeout: timeoutMs, encoding: 'utf8',
		    env: { ...process.env, AQ_SKIP_PACKAGES: '1',
		    AQ_SKIP_BUILD: '1' } }, (err, stdout, stderr) => {
			resolve({ code: err ? (typeof err.code === 'number' ?
			    err.code : -1) : 0, stdout, stderr, tStart,
			    tEnd: Date.now() });
		});
	});
}

const ctl = (...args) => run(`${ROOT}/fcgi-app/aqueuectl`,
    ['-f', `${VAR}/aqueue.conf`, ...args.map(String)], 30000);
const stackCmd = (cmd) => run(`${ROOT}/deploy/local/stack.sh`, [cmd, VAR]);

// ---- queues --------------------------------------------------------------

const queues = [];
const RUN_ID = (SEED >>> 0).toString(36);
const TARGET = 'https://shop.example/';

// cookieName(q): the JSON mode's cookie of q.
const cookieName = (q) => `aditus_wr_${q.jsonCookie ?? q.slug}`;

// createQueue(spec): create it with aqueuectl, an API key for it, and
// its model.
async function createQueue(spec) {
	const slug = `m${RUN_ID}-${spec.tag}`;
	const args = ['create', slug, '--name', `Model ${spec.tag}`,
	    '--target', TARGET, '--domains', 'shop.example',
	    '--rate', spec.rate, '--claim-window', spec.window,
	    '--json-status', spec.jsonStatus,
	    '--abandon', spec.abandon ? 'on' : 'off'];
	if (spec.abandon)
		args.push('--abandon-grace', 60);
	if (spec.burst !== null)
		args.push('--burst', spec.burst);
	if (spec.jsonCookie !== null)
		args.push('--json-cookie', spec.jsonCookie);
	if (spec.numberBlock > 0)
		args.push('--number-block', spec.numberBlock);
	let opensAt = null;
	if (spec.opensIn !== null) {
		opensAt = Date.now() + spec.opensIn;
		args.push('--opens-at', opensAt);
	}
	const r = await ctl(...args);
	const m = /^secret: (\S+)$/m.exec(r.stdout);
	if (r.code !== 0 || m === null)
		throw new Error(`aqueuectl create ${slug}: exit ${r.code} ` +
		    `${r.stderr}${r.stdout}`);
	// A fault may be under way: the queue exists, read it again.
	let show, k, km = null;
	for (let i = 0; i < 30; i++) {
		show = await ctl('show', slug);
		if (show.code === 0)
			break;
		await sleep(1000);
	}
	for (let i = 0; i < 30 && km === null; i++) {
		k = await ctl('key', 'create', slug, '--name', `model${i}`);
		km = /^key: (\S+)$/m.exec(k.stdout);
		if (km === null)
			await sleep(1000);
	}
	if (show.code !== 0 || km === null)
		throw new Error(`aqueuectl show/key ${slug} failed: ` +
		    `${show.stderr}${k.stderr}`);
	const s = JSON.parse(show.stdout);
	const q = new QueueState({ slug, id: s.id, secret: m[1], key: km[1],
	    opensAt, window: spec.window,
	    created: { tStart: r.tStart, tEnd: r.tEnd } });
	q.L0 = s.lastNumber;
	q.rate = spec.rate;
	q.abandon = spec.abandon;
	q.jsonCookie = spec.jsonCookie;
	q.spec = spec;
	q.paused = false;
	q.secretUnknownSince = null;
	q.unverified = [];
	q.numList = [];
	q.maxNumber = 0;
	q.retireAt = opensAt === null ? Infinity : opensAt + 60000;
	oracle.addQueue(q);
	queues.push(q);
	oracle.globalEvent('operator', `create ${slug} rate ${spec.rate} ` +
	    `window ${spec.window}s${spec.burst !== null ? ' burst ' +
	    spec.burst : ''}${spec.abandon ? ' abandon on' : ''} json ` +
	    `${spec.jsonStatus}${spec.numberBlock > 0 ? ' number block ' +
	    spec.numberBlock : ''}${opensAt !== null ? ' opens ' +
	    rel(opensAt) : ''}`, r.tStart, r.tEnd, slug);
	say(`queue ${slug}: rate ${spec.rate}/min, claim window ` +
	    `${spec.window} s${spec.burst !== null ? ', burst ' +
	    spec.burst : ''}, abandonment ${spec.abandon ? 'on' : 'off'}, ` +
	    `JSON status ${spec.jsonStatus}${spec.jsonCookie !== null ?
	    `, JSON cookie aditus_wr_${spec.jsonCookie}` : ''}` +
	    `${opensAt !== null ? `, opens at ${rel(opensAt)}` : ''}`);
	startObserver(q);
	return q;
}

function queueSpec(r, tag, draw) {
	return {
		tag, rate: r.pick(draw ? [60, 90, 120] : [30, 45, 60, 90, 120]),
		burst: r.chance(0.4) ? r.int(1, 4) : null,
		window: r.int(5, 20),
		abandon: r.chance(0.5),
		jsonStatus: r.pick([200, 202, 429]),
		jsonCookie: r.chance(0.3) ? `c${tag}` : null,
		opensIn: draw ? r.int(6000, 12000) : null,
		numberBlock: r.chance(0.5) ? r.int(2, 30) : 0,
	};
}

// ---- tokens --------------------------------------------------------------

function b64json(part) {
	try {
		return JSON.parse(Buffer.from(part, 'base64url')
		    .toString('utf8'));
	} catch {
		return null;
	}
}

// tokenNumber(q, tok, ev, visitor, expect): the token's qnr after
// checking header, issuer, audience and (when expect is a number) qnr;
// the signature is checked with every secret the queue had (a token
// that matches none waits for a rotation in flight).  null when it is
// not a token at all.
function tokenNumber(q, tok, ev, visitor, expect) {
	const parts = typeof tok === 'string' ? tok.split('.') : [];
	const h = parts.length === 3 ? b64json(parts[0]) : null;
	const c = parts.length === 3 ? b64json(parts[1]) : null;
	if (h === null || c === null || h.alg !== 'HS256' ||
	    c.iss !== 'aditus-queue' || c.aud !== q.slug ||
	    !Number.isInteger(c.qnr) ||
	    (expect !== undefined && c.qnr !== expect)) {
		oracle.violation('token-invalid', q, ev, 'a token that is ' +
		    `not one for number ${expect}: ${JSON.stringify(c)}`,
		    { visitor });
		return c !== null && Number.isInteger(c.qnr) ? c.qnr : null;
	}
	if (!signedByAny(q, parts))
		q.unverified.push({ parts, ev, visitor });
	return c.qnr;
}

function signedByAny(q, parts) {
	for (const s of q.secrets) {
		const sig = createHmac('sha256', s).update(`${parts[0]}.` +
		    `${parts[1]}`).digest('base64url');
		if (sig === parts[2])
			return true;
	}
	return false;
}

// recheckTokens(q, final): tokens that matched no secret, again.
function recheckTokens(q, final) {
	const keep = [];
	for (const u of q.unverified) {
		if (signedByAny(q, u.parts))
			continue;
		if (!final)
			keep.push(u);
		else if (q.secretUnknownSince !== null &&
		    u.ev.tRecv >= q.secretUnknownSince)
			oracle.note(`${q.slug}: token signed with a secret ` +
			    'from a rotation that reported a failure');
		else
			oracle.violation('token-invalid', q, u.ev, 'a token ' +
			    'signed with none of the queue\'s secrets',
			    { visitor: u.visitor });
	}
	q.unverified = keep;
}

// ---- answers -------------------------------------------------------------

const FAULT_SLACK_MS = 5000;
const STALL_MS = 5000;

// inDbFault(rec): the request overlapped a database fault (or its
// first seconds after).
function inDbFault(rec) {
	return faultIntervals.some((x) => x.db && x.tStart <= rec.tRecv &&
	    (x.tEnd ?? Infinity) + FAULT_SLACK_MS >= rec.tSend);
}

// stallCheck(ev, rec): an answer (or none) that took STALL_MS or more
// while the database was stopped or restarting, or just after.
function stallCheck(q, ev, rec, visitor) {
	const dur = rec.tRecv - rec.tSend;
	if (dur < STALL_MS)
		return;
	const f = faultIntervals.find((x) => x.db &&
	    x.tStart <= rec.tRecv && (x.tEnd ?? Infinity) + FAULT_SLACK_MS >=
	    rec.tSend);
	if (f !== undefined)
		oracle.violation('stall', q, ev, `${rec.method} ` +
		    `${rec.path.replace(/\?.*/, '')} took ${dur} ms ` +
		    `(${rec.status === 0 ? rec.err : rec.status}) while the ` +
		    `database was ${f.kind}`, { visitor });
	else
		oracle.note(`answers slower than ${STALL_MS} ms outside ` +
		    'database faults');
}

// summary(rec): the answer fields a trace line shows.
function summary(rec) {
	const j = rec.json;
	if (j === null || typeof j !== 'object')
		return rec.headers?.location === undefined ? '' :
		    `Location ${String(rec.headers.location).slice(0, 90)}`;
	const w = j.WaitingRoom ?? j;
	const f = [];
	for (const k of ['error', 'number', 'serving', 'admitted',
	    'inWaitingRoom', 'position', 'stale', 'active', 'preQueue',
	    'updatedAt'])
		if (w[k] !== undefined)
			f.push(`${k}=${k === 'updatedAt' ? rel(w[k]) :
			    JSON.stringify(w[k])}`);
	if (w.token !== undefined)
		f.push('token');
	return f.join(' ');
}

// send(actor, visitor, q, op, pool, method, path, opts): one request,
// recorded; resolves {rec, ev}.
async function send(actor, visitor, q, op, pool, method, path, opts = {}) {
	const rec = await client.send(pool, method, path, opts);
	const ev = oracle.event(rec, { actor, visitor, q, op,
	    extra: summary(rec) });
	stallCheck(q, ev, rec, visitor);
	if ((op === 'status' || op === 'info') && rec.status === 503 &&
	    !nginxOwn503(rec))
		oracle.note(`${op} answered 503 (${rec.json?.error ?? '?'})` +
		    `${inDbFault(rec) ? ' during a database fault' : ''}`);
	return { rec, ev };
}

const transient = (rec) => rec.status === 0 || rec.status === 503 ||
    rec.status === 502 || rec.status === 504;

// statusReq: GET status of number n; feeds the oracle.
async function statusReq(actor, visitor, q, n, pool) {
	const { rec, ev } = await send(actor, visitor, q, 'status', pool,
	    'GET', `/queue/${q.slug}/status?number=${n}`);
	const j = rec.json;
	if (rec.status === 200 && j !== null) {
		oracle.observe({ ev, q, actor, visitor, serving: j.serving,
		    stale: j.stale === true, number: n, admitted: j.admitted,
		    position: j.position });
	} else if (rec.status === 404 && j?.error === 'number_not_found' &&
	    q.numbers.has(n))
		oracle.violation('number-not-found', q, ev, `status: number ` +
		    `${n}, handed out ${rel(q.numbers.get(n).tRecv)}, is ` +
		    `"never issued"`, { involved: [q.numbers.get(n)],
		    visitor });
	return { rec, ev };
}

async function infoReq(actor, visitor, q, pool) {
	const { rec, ev } = await send(actor, visitor, q, 'info', pool, 'GET',
	    `/queue/${q.slug}/info`);
	const j = rec.json;
	if (rec.status === 200 && j !== null) {
		oracle.observe({ ev, q, actor, visitor, serving: j.serving,
		    stale: j.stale === true });
		oracle.learnDraw(q, j, ev);
		if (!j.stale && typeof j.waiting === 'number')
			q.lastWaiting = j.waiting;
	}
	return { rec, ev };
}

async function stateReq(actor, visitor, q) {
	const { rec, ev } = await send(actor, visitor, q, 'state', 1, 'GET',
	    `/queue/${q.slug}/state.json`);
	if (rec.status === 200 && rec.json !== null) {
		oracle.doc(q, ev, rec.json, visitor);
		if (typeof rec.json.waiting === 'number')
			q.lastWaiting = rec.json.waiting;
	}
	return { rec, ev };
}

// noteNumber(q, n, ev, visitor): a number handed out to us.
function noteNumber(q, n, ev, visitor) {
	oracle.number(q, n, ev, visitor);
	q.numList.push(n);
	if (q.numList.length > 2000)
		q.numList.splice(0, 1000);
	if (n > q.maxNumber)
		q.maxNumber = n;
}

// joinOutcome(q, ev, rec, visitor, label): count a join-like request
// that took no number as failed (answered) or lost (no answer from the
// program: it may or may not have taken one).
function joinOutcome(q, ev, rec) {
	if (rec.status === 0 || nginxOwn503(rec))
		oracle.lostJoin(q, ev);
	else
		oracle.failedJoin(q, ev, rec);
}

// ---- visitors ------------------------------------------------------------

let visitorSeq = 0;

function newVisitor(actor, q) {
	return { id: `${actor}.${++visitorSeq}`, actor, q, events: [],
	    firstT: Date.now(), number: null, ticket: null, cookie: null,
	    t0: null, ta: null, admittedAtJoin: false };
}

// jsonHeaders(v, extra): JSON mode's request headers for v.
function jsonHeaders(v, extra = {}) {
	const h = { accept: 'application/json', ...extra };
	if (v.cookie !== null)
		h.cookie = v.cookie;
	return h;
}

// jsonAnswer(v, rec, ev, fresh): feed a JSON mode answer (WaitingRoom)
// to the oracle; returns 'admitted', 'waiting' or null.
function jsonAnswer(v, rec, ev) {
	const q = v.q;
	const w = rec.json?.WaitingRoom;
	if (w === undefined || typeof w.number !== 'number')
		return null;
	let tn;
	if (w.token !== undefined)
		tn = tokenNumber(q, w.token, ev, v, w.number) ?? undefined;
	oracle.observe({ ev, q, actor: v.actor, visitor: v,
	    serving: w.serving, stale: false, number: w.number,
	    admitted: !w.inWaitingRoom, token: tn });
	const want = w.inWaitingRoom ? q.spec.jsonStatus : 200;
	if (rec.status !== want)
		oracle.violation('json-mode', q, ev, `JSON mode answered ` +
		    `${rec.status} ${w.inWaitingRoom ? 'in the waiting room' :
		    'admitted'}, the queue's setting says ${want}`,
		    { visitor: v });
	return w.inWaitingRoom ? 'waiting' : 'admitted';
}

// join(v, entry, pool): take a number through one entry path; sets v's
// number, ticket, cookie, t0 (and ta when admitted at once).
async function join(v, entry, pool) {
	const q = v.q, a = v.actor;
	if (entry === 'join') {
		const { rec, ev } = await send(a, v, q, 'join', pool, 'POST',
		    `/queue/${q.slug}/join`);
		const j = rec.json;
		if (rec.status !== 200 || j === null ||
		    typeof j.number !== 'number') {
			joinOutcome(q, ev, rec);
			return;
		}
		noteNumber(q, j.number, ev, v);
		v.number = j.number;
		v.ticket = j.ticket;
		v.t0 = rec.tSend;
		let tn;
		if (j.token !== undefined)
			tn = tokenNumber(q, j.token, ev, v, j.number) ??
			    undefined;
		oracle.observe({ ev, q, actor: a, visitor: v,
		    serving: j.serving, stale: false, number: j.number,
		    admitted: j.admitted, position: j.position, token: tn });
		if (j.admitted === true && tn !== undefined) {
			v.ta = rec.tRecv;
			v.admittedAtJoin = true;
		}
		v.cookie = `${cookieName(q)}=${j.number}.${j.ticket}`;
		return;
	}
	if (entry === 'enter') {
		const { rec, ev } = await send(a, v, q, 'enter', pool, 'GET',
		    `/queue/${q.slug}/enter`, { headers: NAVIGATE });
		const loc = rec.status === 302 ?
		    String(rec.headers.location ?? '') : '';
		if (loc.startsWith(TARGET)) {
			const tok = new URL(loc).searchParams
			    .get('aditus_queue_token');
			const n = tokenNumber(q, tok, ev, v, undefined);
			if (n === null)
				return;
			noteNumber(q, n, ev, v);
			v.number = n;
			v.t0 = rec.tSend;
			v.ta = rec.tRecv;
			v.admittedAtJoin = true;
			oracle.observe({ ev, q, actor: a, visitor: v,
			    stale: false, token: n });
			return;
		}
		const m = /#number=(\d+)&ticket=([A-Za-z0-9_-]+)$/.exec(loc);
		if (m !== null) {
			const n = Number(m[1]);
			noteNumber(q, n, ev, v);
			v.number = n;
			v.ticket = m[2];
			v.t0 = rec.tSend;
			v.cookie = `${cookieName(q)}=${n}.${m[2]}`;
			return;
		}
		joinOutcome(q, ev, rec);
		return;
	}
	// JSON mode: the first request takes the number.
	const { rec, ev } = await send(a, v, q, 'json-new', pool, 'GET',
	    `/queue/${q.slug}`, { headers: jsonHeaders(v) });
	const w = rec.json?.WaitingRoom;
	if (w === undefined || typeof w.number !== 'number') {
		joinOutcome(q, ev, rec);
		return;
	}
	const ck = (rec.headers['set-cookie'] ?? [])
	    .map((c) => /^([^=;]+)=([^;]*)/.exec(c))
	    .find((m) => m !== null && m[1] === cookieName(q));
	noteNumber(q, w.number, ev, v);
	v.number = w.number;
	v.t0 = rec.tSend;
	if (ck === undefined) {
		oracle.violation('json-mode', q, ev, `JSON mode handed out ` +
		    `number ${w.number} without its cookie ${cookieName(q)}`,
		    { visitor: v });
	} else {
		v.cookie = `${ck[1]}=${ck[2]}`;
		const mm = /^(\d+)\.(.+)$/.exec(ck[2]);
		if (mm !== null && Number(mm[1]) === w.number)
			v.ticket = mm[2];
	}
	if (jsonAnswer(v, rec, ev) === 'admitted') {
		v.ta = rec.tRecv;
		v.admittedAtJoin = true;
	}
}

// ownAnswer(v, rec, said): what an answer about v's own number says
// for its claim window: 'waiting' moves the window's earliest start
// (t0) to when the request was sent; 'admitted' is the first sight.
function ownAnswer(v, rec, said) {
	if (said === 'waiting')
		v.t0 = Math.max(v.t0, rec.tSend);
	else if (said === 'admitted' && v.ta === null)
		v.ta = rec.tRecv;
}

// poll(v, r, admitted): one poll of a present visitor.
async function poll(v, r, admittedPhase) {
	const q = v.q, pool = r.chance(0.5) ? 1 : 2;
	const kind = r.weighted({ status: 5, json: admittedPhase ? 0 :
	    (v.cookie !== null ? 2 : 0), info: 1.5, state: 1.5 });
	if (kind === 'status') {
		const { rec } = await statusReq(v.actor, v, q, v.number, pool);
		if (rec.status === 200 && rec.json !== null &&
		    rec.json.stale !== true)
			ownAnswer(v, rec, rec.json.admitted ? 'admitted' :
			    'waiting');
	} else if (kind === 'json') {
		const { rec, ev } = await send(v.actor, v, q, 'json', pool,
		    'GET', `/queue/${q.slug}`, { headers: jsonHeaders(v) });
		const said = jsonAnswer(v, rec, ev);
		if (checkJsonSameNumber(v, rec, ev) && said !== null)
			ownAnswer(v, rec, said);
	} else if (kind === 'info')
		await infoReq(v.actor, v, q, pool);
	else
		await stateReq(v.actor, v, q);
}

// checkJsonSameNumber: a JSON mode request with v's valid cookie
// answers for v's number; a new number means the cookie was refused.
// Returns true when the answer is about v's number.
function checkJsonSameNumber(v, rec, ev) {
	const w = rec.json?.WaitingRoom;
	if (w === undefined || typeof w.number !== 'number')
		return false;
	if (w.number === v.number)
		return true;
	noteNumber(v.q, w.number, ev, v);
	oracle.violation('json-mode', v.q, ev, `JSON mode with the cookie ` +
	    `of number ${v.number} answered for number ${w.number}`,
	    { visitor: v });
	return false;
}

async function heartbeat(v, pool) {
	const q = v.q;
	await send(v.actor, v, q, 'heartbeat', pool, 'POST',
	    `/queue/${q.slug}/heartbeat`, { headers:
	    { 'content-type': 'application/json' }, body: JSON.stringify(
	    { number: v.number, ticket: v.ticket }) });
}

// tokenReq(v, pool, viaJson): ask for v's token; returns {rec, ev,
// got: true|false|'transient', why}.
async function tokenReq(v, pool, viaJson) {
	const q = v.q;
	if (viaJson) {
		const { rec, ev } = await send(v.actor, v, q, 'json-claim',
		    pool, 'GET', `/queue/${q.slug}`,
		    { headers: jsonHeaders(v) });
		if (transient(rec))
			return { rec, ev, got: 'transient' };
		const said = jsonAnswer(v, rec, ev);
		if (said === null)
			return { rec, ev, got: false, why: `JSON mode: ` +
			    `${rec.status} ${rec.json?.error ?? ''}` };
		// An answer about another number is a violation of its own;
		// it says nothing about this claim.
		if (!checkJsonSameNumber(v, rec, ev))
			return { rec, ev, got: 'other' };
		if (said === 'admitted' && rec.json.WaitingRoom.token !==
		    undefined)
			return { rec, ev, got: true };
		return { rec, ev, got: false, why: 'JSON mode: in the ' +
		    `waiting room (${rec.status})` };
	}
	const { rec, ev } = await send(v.actor, v, q, 'token', pool, 'POST',
	    `/queue/${q.slug}/token`, { headers:
	    { 'content-type': 'application/json' }, body: JSON.stringify(
	    { number: v.number, ticket: v.ticket }) });
	if (transient(rec))
		return { rec, ev, got: 'transient' };
	const j = rec.json;
	if (rec.status === 200 && typeof j?.token === 'string') {
		const n = tokenNumber(q, j.token, ev, v, v.number);
		oracle.observe({ ev, q, actor: v.actor, visitor: v,
		    stale: false, token: n ?? undefined });
		return { rec, ev, got: true };
	}
	if (rec.status === 425)
		oracle.observe({ ev, q, actor: v.actor, visitor: v,
		    stale: false, number: v.number, admitted: false });
	if (rec.status === 404 && j?.error === 'number_not_found')
		oracle.violation('number-not-found', q, ev, `token: number ` +
		    `${v.number}, handed out before, is "never issued"`,
		    { involved: [q.numbers.get(v.number)].filter(Boolean),
		    visitor: v });
	if (rec.status === 403 && j?.error === 'invalid_ticket')
		oracle.violation('ticket-rejected', q, ev, `the ticket the ` +
		    `product gave with number ${v.number} is "invalid"`,
		    { visitor: v });
	return { rec, ev, got: false, why: `${rec.status} ${j?.error ?? ''}` };
}

// claimContext(v, rec): how v came to be admitted and what the operator
// and the faults did meanwhile, for the message of a refused claim.
function claimContext(v, rec) {
	const what = [v.admittedAtJoin ? 'admitted at its join' :
	    'admitted after waiting'];
	const seen = new Map();
	for (const e of oracle.global) {
		if (e.tRecv < v.t0 - 2000 || e.tSend > rec.tRecv ||
		    (e.q !== null && e.q !== v.q.slug))
			continue;
		const w = e.text.replace(/^operator: /, '').split(' ');
		const k = e.actor === 'fault' ? e.text.replace(/^fault: /, '')
		    .replace(/ \d+.*$/, '').replace(/ \(.*$/, '') :
		    w[0] === 'abandonment' ? `${w[0]} ${w[2]}` : w[0];
		seen.set(k, (seen.get(k) ?? 0) + 1);
	}
	for (const [k, n] of seen)
		what.push(n > 1 ? `${k} x${n}` : k);
	return what.join(', ');
}

// claim(v, r): the claim of a present visitor: within its window every
// answer but 503 (retried) must be its token.
async function claim(v, r) {
	const q = v.q;
	const viaJson = v.ticket === null || (v.cookie !== null &&
	    r.chance(0.3));
	for (;;) {
		const res = await tokenReq(v, r.chance(0.5) ? 1 : 2, viaJson);
		const W = q.window.min(v.t0, res.rec.tRecv);
		const D = v.t0 + W * 1000;
		if (res.got === true) {
			claims.ok++;
			return;
		}
		if (res.got === 'other') {
			claims.unverified++;
			return;
		}
		if (res.got === 'transient') {
			if (res.rec.tRecv < D - 300 && !stopping()) {
				await sleep(r.uniform(200, 700));
				continue;
			}
			claims.unverified++;
			return;
		}
		if (res.rec.tRecv < D) {
			claims.refused++;
			oracle.violation('claim-refused', q, res.ev, `number ` +
			    `${v.number}, first seen admitted ${rel(v.ta)}, ` +
			    `refused ${res.rec.tRecv - v.t0} ms after the ` +
			    `window's earliest start ${rel(v.t0)} (window ` +
			    `${W} s): ${res.why} [${claimContext(v, res.rec)}]`,
			    { visitor: v });
		} else
			claims.late++;
		return;
	}
}

// expiry(v, r): long after its window, a ticket obtains no token.
async function expiry(v, r) {
	const q = v.q;
	const viaJson = v.ticket === null || (v.cookie !== null &&
	    r.chance(0.4));
	for (let i = 0; i < 8 && !stopAll; i++) {
		const res = await tokenReq(v, r.chance(0.5) ? 1 : 2, viaJson);
		if (res.got === 'transient') {
			await sleep(r.uniform(300, 900));
			continue;
		}
		const W = q.window.max(v.t0, res.rec.tSend);
		// A change of the window starts it anew for the numbers
		// admitted before (never shorter): count from the last one.
		const from = q.window.changed(v.ta, res.rec.tSend);
		if (res.rec.tSend < from + 2 * W * 1000 + 10000 ||
		    res.got === 'other') {
			claims.expiryUnverified++;
			return;
		}
		if (res.got === true) {
			claims.expiryOpen++;
			oracle.violation('window-not-closed', q, res.ev,
			    `number ${v.number}, first seen admitted ` +
			    `${rel(v.ta)}, still got a token ` +
			    `${res.rec.tSend - v.ta} ms later${viaJson ?
			    ' in JSON mode' : ''} (window at most ${W} s)`,
			    { visitor: v });
		} else
			claims.expiryOk++;
		return;
	}
	claims.expiryUnverified++;
}

// present(v, r): a visitor who stays: polls, heartbeats, claims its
// token at a random moment of its window, maybe checks the window's end.
async function present(v, r) {
	const q = v.q;
	await join(v, r.weighted({ join: 3, enter: 2, json: 2 }),
	    r.chance(0.5) ? 1 : 2);
	if (v.number === null)
		return;
	const giveUp = Date.now() + 90000;
	let nextHb = 0, claimAt = null, expiryAt = null, claimed = false;
	const checkExpiry = r.chance(0.3);
	const pace = () => r.uniform(60, 300);
	while (!stopping()) {
		const now = Date.now();
		if (v.ta === null) {
			if (now > giveUp) {
				oracle.note('present visitors that gave up ' +
				    'waiting');
				return;
			}
			if (v.ticket !== null && now >= nextHb) {
				await heartbeat(v, r.chance(0.5) ? 1 : 2);
				nextHb = Date.now() + r.uniform(3000, 7000);
			} else
				await poll(v, r, false);
			await sleep(pace());
			continue;
		}
		if (v.ticket === null && v.cookie === null) {
			// Admitted at the gateway: the token went to the shop;
			// nothing to claim with.  A few polls, then gone.
			for (let i = r.int(0, 4); i > 0 && !stopping(); i--) {
				await poll(v, r, true);
				await sleep(pace());
			}
			return;
		}
		if (claimAt === null) {
			const W = q.window.min(v.t0, now);
			const D = v.t0 + W * 1000;
			claimAt = v.ta + r.uniform(0, Math.max(0,
			    D - 2000 - v.ta));
		}
		if (!claimed && now >= claimAt) {
			await claim(v, r);
			claimed = true;
			if (!checkExpiry)
				return;
			continue;
		}
		if (claimed) {
			const W = q.window.max(v.t0, now);
			expiryAt = v.ta + 2 * W * 1000 + 10000;
			if (now >= expiryAt) {
				await expiry(v, r);
				return;
			}
			if (expiryAt > DEADLINE)
				return;
		}
		await poll(v, r, true);
		await sleep(claimed ? r.uniform(300, 1200) : pace());
	}
}

// silent(v, r): takes a number and is never heard of again.
async function silent(v, r) {
	await join(v, r.weighted({ join: 3, enter: 2, json: 2 }),
	    r.chance(0.5) ? 1 : 2);
}

// looker(v, r): polls a queue without a number of its own.
async function looker(v, r) {
	const q = v.q;
	for (let i = r.int(3, 12); i > 0 && !stopping(); i--) {
		const pool = r.chance(0.5) ? 1 : 2;
		const k = r.weighted({ info: 3, state: 3,
		    status: q.numList.length > 0 ? 4 : 0 });
		if (k === 'info')
			await infoReq(v.actor, v, q, pool);
		else if (k === 'state')
			await stateReq(v.actor, v, q);
		else
			await statusReq(v.actor, v, q, r.pick(q.numList), pool);
		await sleep(r.uniform(20, 150));
	}
}

// rude(v, r): a request that must take no number (not the visitor's
// own deliberate request, or bad input), or a wrong ticket.
async function rude(v, r) {
	const q = v.q, a = v.actor, pool = r.chance(0.5) ? 1 : 2;
	const kind = r.pick(['enter-head', 'enter-prefetch', 'enter-fetch',
	    'join-cross-site', 'join-bad-json', 'json-prefetch',
	    'json-cross-site', 'token-wrong-ticket']);
	const enter = `/queue/${q.slug}/enter`;
	let res;
	switch (kind) {
	case 'enter-head':
		res = await send(a, v, q, kind, pool, 'HEAD', enter,
		    { headers: NAVIGATE });
		break;
	case 'enter-prefetch':
		res = await send(a, v, q, kind, pool, 'GET', enter,
		    { headers: { ...NAVIGATE, 'sec-purpose': 'prefetch' } });
		break;
	case 'enter-fetch':
		res = await send(a, v, q, kind, pool, 'GET', enter,
		    { headers: { 'sec-fetch-mode': 'cors',
		    'sec-fetch-dest': 'empty', 'sec-fetch-site': 'same-origin',
		    accept: '*/*' } });
		break;
	case 'join-cross-site':
		res = await send(a, v, q, kind, pool, 'POST',
		    `/queue/${q.slug}/join`, { headers: {
		    origin: 'https://evil.test', 'sec-fetch-site': 'cross-site',
		    'sec-fetch-mode': 'cors' } });
		break;
	case 'join-bad-json':
		res = await send(a, v, q, kind, pool, 'POST',
		    `/queue/${q.slug}/join`, { headers: {
		    'content-type': 'application/json' }, body: '{"a":' });
		break;
	case 'json-prefetch':
		res = await send(a, v, q, kind, pool, 'GET', `/queue/${q.slug}`,
		    { headers: { accept: 'application/json',
		    'sec-purpose': 'prefetch' } });
		break;
	case 'json-cross-site':
		res = await send(a, v, q, kind, pool, 'GET', `/queue/${q.slug}`,
		    { headers: { accept: 'application/json',
		    origin: 'https://evil.test', 'sec-fetch-site': 'cross-site',
		    'sec-fetch-mode': 'cors' } });
		break;
	case 'token-wrong-ticket': {
		if (q.numList.length === 0)
			return;
		const n = r.pick(q.numList);
		res = await send(a, v, q, kind, pool, 'POST',
		    `/queue/${q.slug}/token`, { headers:
		    { 'content-type': 'application/json' }, body:
		    JSON.stringify({ number: n, ticket:
		    randomTicket(r) }) });
		if (res.rec.status === 200)
			oracle.violation('token-wrong-ticket', q, res.ev,
			    `a token for number ${n} with a made-up ticket`,
			    { visitor: v });
		return;
	}
	}
	const { rec, ev } = res;
	let n = null;
	const loc = String(rec.headers.location ?? '');
	const m = /#number=(\d+)/.exec(loc);
	if (m !== null)
		n = Number(m[1]);
	else if (loc.startsWith(TARGET))
		n = tokenNumber(q, new URL(loc).searchParams.get(
		    'aditus_queue_token'), ev, v, undefined);
	else if (typeof rec.json?.number === 'number' && rec.status === 200)
		n = rec.json.number;
	else if (typeof rec.json?.WaitingRoom?.number === 'number')
		n = rec.json.WaitingRoom.number;
	if (n !== null) {
		noteNumber(q, n, ev, v);
		oracle.violation('non-deliberate-number', q, ev, `${kind}: ` +
		    `number ${n} taken by a request that is not the ` +
		    `visitor's own deliberate one (or bad input)`,
		    { visitor: v });
	} else
		joinOutcome(q, ev, rec);
}

function randomTicket(r) {
	const b = Buffer.alloc(16);
	for (let i = 0; i < 16; i++)
		b[i] = r.int(0, 255);
	return b.toString('base64url');
}

// chooseQueue(r, joins): a queue for a visitor; one that takes numbers
// only where the wait stays short (so that visitors are admitted within
// the run), or before its opening with a small pre-queue.
function chooseQueue(r, joins) {
	const live = queues.filter((q) => !q.retired && !q.tainted);
	if (live.length === 0)
		return null;
	if (!joins)
		return r.pick(live);
	const now = Date.now();
	const ok = live.filter((q) => {
		if (q.paused || now > q.retireAt - 30000)
			return false;
		if (q.certainlyBeforeOpening(now + 1000))
			return q.maxNumber < 40;
		return q.lastWaiting * 60 / Math.max(1, q.rate) < 25;
	});
	return ok.length === 0 ? null : r.pick(ok);
}

async function visitorActor(idx) {
	const r = rng.fork(`visitor${idx}`);
	const actor = `v${idx}`;
	await sleep(r.uniform(0, 500));
	while (!stopping()) {
		let type = r.weighted({ present: 55, silent: 8, looker: 27,
		    rude: 10 });
		let q = chooseQueue(r, type === 'present' || type === 'silent');
		if (q === null) {
			type = 'looker';
			q = chooseQueue(r, false);
		}
		if (q === null) {
			await sleep(200);
			continue;
		}
		const v = newVisitor(actor, q);
		if (type === 'present')
			await present(v, r);
		else if (type === 'silent')
			await silent(v, r);
		else if (type === 'looker')
			await looker(v, r);
		else
			await rude(v, r);
		await sleep(r.exp(60));
	}
}

// rushActor: the newsletter's moment, scaled down: now and then a dozen
// visitors join one queue at once (with number blocks, the pool's
// processes then take leases), most of them silent after their join.
async function rushActor() {
	const r = rng.fork('rush');
	let k = 0;
	await sleep(r.uniform(3000, 8000));
	while (!stopping()) {
		const q = chooseQueue(r, true);
		if (q !== null) {
			k++;
			await Promise.all(Array.from({ length: r.int(8, 16) },
			    (_, i) => {
				const rv = rng.fork(`rush${k}.${i}`);
				const v = newVisitor(`r${k}.${i}`, q);
				return rv.chance(0.7) ? silent(v, rv) :
				    present(v, rv);
			}));
		}
		await sleep(r.uniform(8000, 20000));
	}
}

// ---- the alternating observers -----------------------------------------

const observers = [];

// startObserver(q): one sequential observer of q asking pool 1 and pool
// 2 in turn (status of the newest number we know, or info).
function startObserver(q) {
	const r = rng.fork(`observer-${q.slug}`);
	const actor = `alt-${q.spec.tag}`;
	observers.push((async () => {
		let pool = 1;
		while (!stopping() && !q.retired) {
			if (q.maxNumber > 0 && r.chance(0.7))
				await statusReq(actor, null, q, q.maxNumber,
				    pool);
			else
				await infoReq(actor, null, q, pool);
			pool = 3 - pool;
			await sleep(r.uniform(10, 40));
		}
	})());
}

// drawWatcher: after an opening, /info until the draw is published.
async function drawWatcher() {
	const r = rng.fork('draw-watcher');
	while (!stopping()) {
		for (const q of queues)
			if (q.isDraw && !q.resolved() && !q.tainted &&
			    q.certainlyOpened(Date.now()))
				await infoReq('draw', null, q, r.chance(0.5) ?
				    1 : 2);
		await sleep(300);
	}
}

// ---- the operator --------------------------------------------------------

// op(q, text, res, ok): record an operator action.
function opEvent(q, text, res, ok) {
	const out = ok ? 'ok' : `refused/failed (${res.code ?? res.status}` +
	    `${res.stderr ? ': ' + res.stderr.trim().split('\n')[0] :
	    res.text ? ': ' + res.text.trim().slice(0, 80) : ''})`;
	oracle.globalEvent('operator', `${text} -> ${out}`, res.tStart ??
	    res.tSend, res.tEnd ?? res.tRecv, q.slug);
	if (!text.startsWith('rotate-secret'))
		oracle.change(q, res.tStart ?? res.tSend, res.tEnd ?? res.tRecv);
}

// rest(q, method, path, body): the admin API with q's key, via nginx.
async function rest(q, method, path, body = null) {
	const rec = await client.send(1, method,
	    `/api/admin/queue/sites/${q.id}${path}`, { headers: {
	    authorization: `Bearer ${q.key}`,
	    'content-type': 'application/json' },
	    body: body === null ? null : JSON.stringify(body) });
	return rec;
}

// patch(q, change): read the site, change it, write it back; returns
// the PATCH's answer (or the failed GET's).
async function patch(q, change) {
	const g = await rest(q, 'GET', '');
	if (g.status !== 200 || g.json === null)
		return g;
	const obj = g.json;
	change(obj);
	return rest(q, 'PATCH', '', obj);
}

// ambiguous(res, viaRest): a failure after which the change may still
// have been made (no answer, or the database failed under it).
const ambiguous = (res, viaRest) => viaRest ?
    (res.status === 0 || res.status >= 500) : res.code === 1 ||
    res.code === -1;

async function setRate(q, r, rate) {
	const viaRest = r.chance(0.4);
	const res = viaRest ? await patch(q, (o) => {
		o.ratePerMinute = rate;
	}) : await ctl('set-rate', q.slug, rate);
	const ok = viaRest ? res.status === 200 : res.code === 0;
	if (ok)
		q.rate = rate;
	opEvent(q, `set-rate ${q.slug} ${rate}${viaRest ? ' (REST)' : ''}`,
	    res, ok);
}

// pauseResume(q, r, pause): returns 'ok', 'maybe' (failed in a way
// that may have applied it) or 'refused'.
async function pauseResume(q, r, pause) {
	const viaRest = r.chance(0.4);
	const what = pause ? 'pause' : 'resume';
	const res = viaRest ? await rest(q, 'POST', `/${what}`) :
	    await ctl(what, q.slug);
	const ok = viaRest ? res.status === 200 : res.code === 0;
	const maybe = !ok && ambiguous(res, viaRest);
	if (ok || maybe)
		q.paused = pause;
	opEvent(q, `${what} ${q.slug}${viaRest ? ' (REST)' : ''}`, res, ok);
	return ok ? 'ok' : maybe ? 'maybe' : 'refused';
}

async function claimWindow(q, r) {
	const w = r.int(5, 20);
	const viaRest = r.chance(0.4);
	const res = viaRest ? await patch(q, (o) => {
		o.claimWindowSeconds = w;
	}) : await ctl('update', q.slug, '--claim-window', w);
	const ok = viaRest ? res.status === 200 : res.code === 0;
	const t1 = res.tSend ?? res.tStart, t2 = res.tRecv ?? res.tEnd;
	if (ok || ambiguous(res, viaRest))
		q.window.add(t1, t2, w, ok);
	opEvent(q, `claim window ${q.slug} ${w}s${viaRest ? ' (REST)' :
	    ''}`, res, ok);
}

async function abandonment(q, r) {
	const on = !q.abandon;
	const viaRest = r.chance(0.4);
	const res = viaRest ? await patch(q, (o) => {
		o.abandonment = on;
		o.abandonGraceSeconds = 60;
	}) : await ctl('update', q.slug, '--abandon', on ? 'on' : 'off',
	    ...(on ? ['--abandon-grace', 60] : []));
	const ok = viaRest ? res.status === 200 : res.code === 0;
	if (ok)
		q.abandon = on;
	opEvent(q, `abandonment ${q.slug} ${on ? 'on' : 'off'}` +
	    `${viaRest ? ' (REST)' : ''}`, res, ok);
}

async function rotate(q) {
	const res = await ctl('rotate-secret', q.slug);
	const m = /^secret: (\S+)$/m.exec(res.stdout);
	if (res.code === 0 && m !== null) {
		q.secrets.push(m[1]);
		recheckTokens(q, false);
	} else if (ambiguous(res, false))
		q.secretUnknownSince ??= res.tStart;
	opEvent(q, `rotate-secret ${q.slug}`, res, res.code === 0);
}

// opening(q, r, value): move the opening (value: Unix ms) or cancel it
// (null); refused once numbers wait for the draw or it has opened.
async function opening(q, r, value) {
	const viaRest = r.chance(0.4);
	const res = viaRest ? await patch(q, (o) => {
		o.opensAt = value === null ? null :
		    new Date(value).toISOString();
	}) : await ctl('update', q.slug, '--opens-at', value === null ?
	    'none' : value);
	const ok = viaRest ? res.status === 200 : res.code === 0;
	const t1 = res.tSend ?? res.tStart, t2 = res.tRecv ?? res.tEnd;
	if (ok || ambiguous(res, viaRest)) {
		if (!q.isDraw && value !== null && ok) {
			// Armed on a queue that had handed out numbers.
			oracle.violation('opening-armed-with-numbers', q,
			    { id: 0, actor: 'operator', tSend: t1, tRecv: t2,
			    pool: 0, text: `operator: arm ${q.slug}` },
			    `an opening was armed on a queue that had handed ` +
			    `out ${q.numbers.size} numbers`);
			q.tainted = true;
			q.retired = true;
		}
		q.opening.add(t1, t2, value, ok);
		if (value !== null && ok)
			q.retireAt = value + 60000;
	}
	if (ok && value === null) {
		q.P = 0;
		oracle.drain(q);
	}
	opEvent(q, `${value === null ? 'cancel the opening of' :
	    'open at ' + rel(value) + ':'} ${q.slug}${viaRest ? ' (REST)' :
	    ''}`, res, ok);
}

let drawSeq = 0;

async function operatorActor() {
	const r = rng.fork('operator');
	const resumes = new Map();
	let nextDraw = T0 + 25000;
	while (!stopping()) {
		await nap(r.exp(2500));
		if (stopping())
			break;
		const now = Date.now();
		for (const [q, t] of resumes)
			if (now >= t) {
				resumes.delete(q);
				if ((await pauseResume(q, r, false)) !== 'ok')
					resumes.set(q, Date.now() + 1000);
			}
		for (const q of queues)
			if (!q.retired && now > q.retireAt) {
				q.retired = true;
				oracle.globalEvent('operator', 'retire ' +
				    `${q.slug} (no more joins)`, now, now,
				    q.slug);
			}
		const live = queues.filter((q) => !q.retired);
		if (now >= nextDraw && DEADLINE - now > 45000 &&
		    live.length < 7) {
			// A new opening every 40 s at first, then every 150 s
			// (every queue stays in the stack until the end).
			nextDraw = now + (drawSeq < 6 ? 40000 : 150000);
			try {
				await createQueue(queueSpec(r,
				    `d${++drawSeq}`, true));
			} catch (e) {
				oracle.note('queue creation failed: ' +
				    e.message);
			}
			continue;
		}
		if (live.length === 0)
			continue;
		const q = r.pick(live);
		const drawOpen = q.isDraw && q.certainlyBeforeOpening(now) &&
		    q.latestOpening() > now + 3000;
		const act = r.weighted({ rate: 4, rate2: 1.5,
		    pause: q.paused ? 0 : 1.2, rotate: 1, window: 1.5,
		    abandon: 1, move: drawOpen ? 1.5 : 0,
		    cancel: drawOpen ? 0.6 : 0, arm: q.isDraw ||
		    q.numbers.size === 0 ? 0 : 0.3 });
		const rates = [20, 30, 45, 60, 90, 120, 180, 300];
		switch (act) {
		case 'rate':
			await setRate(q, r, r.pick(rates));
			break;
		case 'rate2':
			// Two quick changes.
			await setRate(q, r, r.pick(rates));
			await sleep(r.uniform(50, 800));
			await setRate(q, r, r.pick(rates));
			break;
		case 'pause':
			if ((await pauseResume(q, r, true)) !== 'refused')
				resumes.set(q, Date.now() + r.uniform(1000,
				    7000));
			break;
		case 'rotate':
			await rotate(q);
			break;
		case 'window':
			await claimWindow(q, r);
			break;
		case 'abandon':
			await abandonment(q, r);
			break;
		case 'move':
			await opening(q, r, Date.now() + r.int(4000, 12000));
			break;
		case 'cancel':
			await opening(q, r, null);
			break;
		case 'arm':
			await opening(q, r, Date.now() + r.int(5000, 15000));
			break;
		}
	}
	for (const q of resumes.keys())
		for (let i = 0; i < 20; i++) {
			if ((await pauseResume(q, r, false)) === 'ok')
				break;
			await sleep(1000);
		}
}

// ---- the fault actor -----------------------------------------------------

const faultIntervals = [];
let faultBusy = Promise.resolve();

// Faults so far: each may cost a pool process's lease (number blocks).
let faultCount = 0;

function faultEvent(text, tStart, tEnd) {
	faultCount++;
	oracle.globalEvent('fault', text, tStart, tEnd);
}

async function killPoolProcess(r) {
	const n = r.chance(0.5) ? 1 : 2;
	const master = readPid(POOLS[n].pidFile);
	if (!ours(master, POOLS[n].conf)) {
		oracle.note(`pool ${n}: no master to kill a process of`);
		return;
	}
	const kids = childPids(master).filter((p) =>
	    ours(p, POOLS[n].conf) || cmdline(p).includes('aqueue-fcgi'));
	if (kids.length === 0)
		return;
	const pid = r.pick(kids);
	const t = Date.now();
	try {
		process.kill(pid, 'SIGKILL');
	} catch {
		return;
	}
	faultEvent(`kill -9 pool ${n} process ${pid}`, t, Date.now());
}

async function killWorker(r) {
	const pid = readPid(WORKER_PID);
	if (!ours(pid, 'aqueue-worker', `${VAR}/aqueue.conf`))
		return;
	const t = Date.now();
	try {
		process.kill(pid, 'SIGKILL');
	} catch {
		return;
	}
	const f = { kind: 'worker killed', db: false, tStart: t, tEnd: null };
	faultIntervals.push(f);
	await sleep(r.uniform(2000, 10000));
	const res = await stackCmd('worker-start');
	f.tEnd = Date.now();
	faultEvent(`kill -9 worker ${pid}; started again ` +
	    `(${res.code === 0 ? 'ok' : 'FAILED ' + res.stderr.trim()})`, t,
	    f.tEnd);
}

async function stopDb(r) {
	const pid = dbPid();
	if (pid === null)
		return;
	const t = Date.now();
	const f = { kind: 'stopped (SIGSTOP)', db: true, tStart: t,
	    tEnd: null };
	faultIntervals.push(f);
	dbStoppedPid = pid;
	try {
		process.kill(pid, 'SIGSTOP');
		await sleep(r.uniform(1000, 10000));
	} finally {
		continueDb();
		f.tEnd = Date.now();
	}
	faultEvent(`mariadbd SIGSTOP ... SIGCONT`, t, f.tEnd);
}

async function restartDb() {
	const t = Date.now();
	const f = { kind: 'restarting', db: true, tStart: t, tEnd: null };
	faultIntervals.push(f);
	const a = await stackCmd('db-stop');
	const b = await stackCmd('db-start');
	f.tEnd = Date.now();
	faultEvent(`database restarted (stop ${a.code === 0 ? 'ok' :
	    'FAILED'}, start ${b.code === 0 ? 'ok' : 'FAILED ' +
	    b.stderr.trim().slice(0, 200)})`, t, f.tEnd);
	if (b.code !== 0)
		throw new Error('the database did not start again: ' +
		    b.stderr);
}

async function faultActor() {
	const r = rng.fork('faults');
	await nap(r.uniform(5000, 15000));
	while (!stopping() && DEADLINE - Date.now() > 15000) {
		const f = r.weighted({ pool: 4, dbstop: 3, worker: 2,
		    dbrestart: 1 });
		if (f === 'pool')
			await killPoolProcess(r);
		else if (f === 'dbstop')
			await stopDb(r);
		else if (f === 'worker')
			await killWorker(r);
		else
			await restartDb();
		await nap(r.exp(18000));
	}
}

// ---- the end -------------------------------------------------------------

// healthy(): both pools answer healthz, the database answers, the
// worker runs (started again when not).
async function healthy() {
	for (let i = 0; i < 60; i++) {
		const a = await client.send(1, 'GET', '/queue/healthz');
		const b = await client.send(2, 'GET', '/queue/healthz');
		const c = await ctl('list', '--json');
		if (a.status === 200 && b.status === 200 && c.code === 0) {
			const w = readPid(WORKER_PID);
			if (!ours(w, 'aqueue-worker', `${VAR}/aqueue.conf`))
				await stackCmd('worker-start');
			return JSON.parse(c.stdout);
		}
		await sleep(500);
	}
	throw new Error('the stack did not come back after the faults');
}

async function voidedCounts() {
	const m = new Map();
	const rec = await client.send(1, 'GET', '/metrics');
	if (rec.status !== 200)
		return { m, how: `/metrics answered ${rec.status}` };
	const re = new RegExp('^aqueue_queue_joins_voided_total' +
	    '\\{queue="([^"]+)"\\} (\\d+)', 'gm');
	let x, seen = false;
	while ((x = re.exec(rec.text)) !== null) {
		m.set(x[1], Number(x[2]));
		seen = true;
	}
	return { m, how: seen ? 'from /metrics' :
	    'aqueue_queue_joins_voided_total not in /metrics: 0' };
}

async function account(list) {
	const { m: voided, how } = await voidedCounts();
	say(`voided joins: ${how}`);
	const byslug = new Map(list.map((x) => [x.slug, x]));
	for (const q of queues) {
		const row = byslug.get(q.slug);
		if (row === undefined)
			continue;
		const L = row.lastNumber ?? row.last_number;
		const issued = L - q.L0;
		const received = q.numbers.size;
		const vd = voided.get(q.slug) ?? 0;
		const lost = q.lost.length;
		// Number blocks: the numbers of leases handed to nobody,
		// counted by the row; a process killed (or a pool stopped
		// while the database did not answer) takes the rest of its
		// lease with it, at most a block per fault.
		const unused = row.numbersUnused ?? 0;
		const slack = q.spec.numberBlock * faultCount;
		const missing = [];
		for (let n = q.L0 + 1; n <= L && missing.length < 10000; n++)
			if (!q.numbers.has(n))
				missing.push(n);
		const beyond = [...q.numbers.keys()].filter((n) => n > L);
		say(`queue ${q.slug}: last number ${L} (from ${q.L0}): ` +
		    `received ${received}, voided ${vd}, lost answers ` +
		    `${lost}, failed answers ${q.failed.length}, unused ` +
		    `lease numbers ${unused} (+ up to ${slack} lost with ` +
		    `their process), not received ${missing.length}`);
		const now = Date.now();
		const end = { id: 0, actor: 'accounting', pool: 0, tSend: now,
		    tRecv: now, text: `accounting: last number ${L}` };
		if (beyond.length > 0)
			oracle.violation('numbers-accounting', q, end,
			    `numbers received above the last number ${L}: ` +
			    `${beyond.slice(0, 10).join(', ')}`);
		if (issued > received + vd + lost + unused + slack) {
			const k = issued - received - vd - lost - unused;
			const n = missing[0];
			const lo = q.numbers.get(n - 1)?.tSend ?? T0;
			let hi = Infinity;
			for (let x = n + 1; x <= L; x++)
				if (q.numbers.has(x)) {
					hi = q.numbers.get(x).tRecv;
					break;
				}
			const near = [...q.failed, ...q.lost].filter((e) =>
			    e.tRecv >= lo && e.tSend <= hi);
			for (const e of q.events)
				if (e.tRecv >= lo && e.tSend <= hi &&
				    /join|enter|json-new|prefetch|cross-site/
				    .test(e.op) && !near.includes(e))
					near.push(e);
			const ev = { id: 0, actor: 'accounting', pool: 0,
			    tSend: lo, tRecv: Math.min(hi, now),
			    text: `number ${n} was issued and handed to ` +
			    'nobody' };
			oracle.violation('failed-join-left-number', q, ev,
			    `${k} of the ${missing.length} numbers not ` +
			    `received are covered by no lost answer or void ` +
			    `(first: ${n}; not received: ` +
			    `${missing.slice(0, 12).join(', ')}` +
			    `${missing.length > 12 ? ', ...' : ''})`,
			    { involved: near.slice(0, 30) });
		}
		if (issued < received + vd + unused)
			oracle.violation('numbers-accounting', q, end,
			    `${issued} numbers issued, but ${received} ` +
			    `received, ${vd} voided and ${unused} unused`);
	}
}

// resolveDraws(): after the faults, the published draws of openings
// that passed; an opening long past without its draw is a violation.
async function resolveDraws() {
	const open = () => queues.filter((q) => q.isDraw && !q.tainted &&
	    !q.resolved() && q.certainlyOpened(Date.now()));
	const end = Date.now() + 15000;
	while (open().length > 0 && Date.now() < end) {
		for (const q of open())
			await infoReq('draw', null, q, 1);
		await sleep(300);
	}
	for (const q of queues) {
		if (!q.isDraw || q.tainted || q.resolved())
			continue;
		const o = q.latestOpening();
		if (o !== null && Date.now() - o > 15000 && q.P !== 0) {
			const { rec, ev } = await infoReq('draw', null, q, 1);
			oracle.violation('draw-unpublished', q, ev,
			    `opened ${rel(o)}, ${Math.round((Date.now() - o) /
			    1000)} s ago; /info says ${rec.text.trim()
			    .slice(0, 200)}`);
		} else if (q.pending.length > 0)
			oracle.note(`${q.slug}: checks left waiting for a ` +
			    `draw that has not opened (${q.pending.length})`);
	}
}

// ---- main ----------------------------------------------------------------

async function main() {
	checkAgainstScript(ROOT);
	const r = rng.fork('setup');
	await createQueue(queueSpec(r, 'a', false));
	await createQueue(queueSpec(r, 'b', false));
	await createQueue(queueSpec(r, 'c', false));
	await createQueue(queueSpec(r, 'd0', true));
	const lag = monitorEventLoopDelay({ resolution: 20 });
	lag.enable();
	say(`running ${A.seconds} s with ${A.actors} visitor actors`);
	let lastOps = 0, lastT = Date.now();
	const progress = setInterval(() => {
		const now = Date.now();
		const ops = oracle.ops;
		const rate = Math.round((ops - lastOps) * 1000 /
		    (now - lastT));
		say(`${rel(now)} ${ops} operations (${rate}/s), ` +
		    `${oracle.total} violations, claims ok ${claims.ok}`);
		lastOps = ops;
		lastT = now;
		oracle.prune(now);
	}, 10000);
	const actors = [];
	for (let i = 0; i < A.actors; i++)
		actors.push(visitorActor(i));
	actors.push(operatorActor(), drawWatcher(), rushActor());
	let faultError = null;
	const faults = faultActor().catch((e) => {
		faultError = e;
	});
	await Promise.all(actors);
	await faults;
	if (faultError !== null)
		throw faultError;
	await Promise.all(observers);
	clearInterval(progress);
	continueDb();
	const elapsed = (Date.now() - T0) / 1000;
	const ops = oracle.ops;
	say(`schedule done after ${elapsed.toFixed(1)} s: ${ops} ` +
	    `operations, ${Math.round(ops / elapsed)}/s; event loop delay ` +
	    `max ${Math.round(lag.max / 1e6)} ms`);
	const list = await healthy();
	await sleep(LAG_MS);
	await resolveDraws();
	for (const q of queues)
		recheckTokens(q, true);
	await account(list);
	say(`claims: ${claims.ok} tokens within the window, ` +
	    `${claims.refused} refused within it, ${claims.late} refused ` +
	    `after it, ${claims.unverified} not verified (faults until ` +
	    `the window's end); window ends: ${claims.expiryOk} closed, ` +
	    `${claims.expiryOpen} still open, ${claims.expiryUnverified} ` +
	    'not verified');
	for (const q of queues)
		if (q.pendingDropped > 0)
			oracle.note(`${q.slug}: checks dropped ` +
			    `(${q.pendingDropped})`);
	say(`operations: ${[...oracle.byOp.entries()].sort((a, b) =>
	    b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ')}`);
	for (const [k, n] of oracle.notes)
		say(`note: ${k}${n > 1 ? ` (${n})` : ''}`);
	for (const l of oracle.report())
		say(l);
	if (oracle.total > 0) {
		say(`every violation: ${VAR}/log/violations.log`);
		for (const l of oracle.traces())
			console.log(l);
		say(`seed ${SEED} (test/model/run --seed ${SEED} --seconds ` +
		    `${A.seconds} repeats the schedule)`);
	}
	client.close();
	say(`${oracle.staleSteps} steps back between stale answers within ` +
	    'their bound (the numbers handed out around the last fresh answer)' +
	    `, ${oracle.staleChangeSteps} after an operator's change just ` +
	    'before the outage');
	console.log(`model: ${oracle.ops} operations, ${oracle.total} ` +
	    `violations (seed ${SEED})`);
	return oracle.total === 0 ? 0 : 1;
}

main().then((code) => process.exit(code), (e) => {
	continueDb();
	console.log(`model: the run failed: ${e.stack ?? e}`);
	console.log(`model: ${oracle.ops} operations, ${oracle.total} ` +
	    `violations (seed ${SEED})`);
	process.exit(2);
});

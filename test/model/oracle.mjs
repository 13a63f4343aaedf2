// test/model/oracle.mjs - the model's judge: an account of every answer
// the actors got, checked against rules that hold for any correct
// implementation of the admission contract (SPEC sections 3, 4, 9, 10),
// not against the product's own formulas.
//
// Times are wall-clock milliseconds of this machine, which is also the
// database's clock (the private MariaDB runs here): an answer received
// at t was computed before t, a request sent at t was computed after t.
// The rules:
//   numbers      every number handed out is unique; at the end the
//                queue's last number minus the numbers received is
//                covered by voids, answers that were lost (a failed
//                answer leaves nothing behind) and, with number blocks,
//                the numbers of leases handed to nobody
//   monotone     per observer (a sequential client) and queue, serving
//                never falls below a value it was shown before
//   token floor  once a token for n was received, every non-stale
//                answer sent afterwards has serving >= position(n)
//   order        once position p was seen admitted, no non-stale answer
//                sent afterwards says a number at or before p is not
//   consistent   an answer's admitted equals position(n) <= serving; a
//                token comes only with an admitted answer
//   opening      before a scheduled opening nobody is admitted, no token
//                is minted and serving is 0
//   poll doc     state.json's serving is serving at its updatedAt
//   claim        (judged by the visitor actors, recorded here)
// Positions of a scheduled opening's pre-queue are computed from the
// seed and size that /info publishes after the opening (draw.mjs); the
// checks that need them wait until both are known.

import { appendFileSync } from 'node:fs';
import { drawPosition, sha256hex } from './draw.mjs';

// An operator change may take effect this long after its command
// returned (propagation to every process).
export const LAG_MS = 1500;
// A stale answer (the database does not answer) comes from the last
// state its process read, raised to what any process of its pool read
// or answered fresh.  Two pools whose last reads straddled joins just
// before the outage may differ by the numbers handed out then (a state
// is read again when 125 ms old, the cap lags a 250 ms tick).  Such a
// step back is allowed up to the numbers handed out within this window
// around the last fresh answer on the queue.  When an operator changed
// the queue's admission just before an outage, one process may have
// read the change and another not: their stale answers then grow apart
// for as long as the outage lasts (up to 10 s, and a second's hold-off
// after it), and a step back within STALE_CHANGE_MS of a change is
// counted, not judged.
const STALE_BEFORE_MS = 1500;
const STALE_AFTER_MS = 500;
const STALE_CHANGE_MS = 15000;
// Slack around state.json's updatedAt.
const DOC_SLACK_MS = 20;
// Answers kept for the poll document check, and events for traces.
const RECENT_MS = 30000;
const KEEP_EVENTS_MS = 300000;
// Traces built per kind before only shorter ones are built.
const TRACES_FIRST = 30;
const TRACE_MAX_LINES = 120;

// Versions of a setting as the operator changed it: the values that may
// be in effect at a time, given when each command started and ended (a
// failed command may have taken effect too).
export class Versions {
	constructor() {
		this.v = [];
	}

	add(tStart, tEnd, value, ok) {
		this.v.push({ tStart, tEnd, value, ok });
	}

	// possible(a, b): every value that may be in effect at some time in
	// [a, b].
	possible(a, b) {
		const out = [];
		for (let i = 0; i < this.v.length; i++) {
			const v = this.v[i];
			if (v.tStart > b)
				continue;
			let end = Infinity;
			for (let j = i + 1; j < this.v.length; j++)
				if (this.v[j].ok) {
					end = this.v[j].tEnd + LAG_MS;
					break;
				}
			if (end > a)
				out.push(v.value);
		}
		return out;
	}

	min(a, b) {
		return Math.min(...this.possible(a, b));
	}

	max(a, b) {
		return Math.max(...this.possible(a, b));
	}

	// changed(a, b): the latest time in [a, b] at which a change made
	// after the first value may have taken effect (its command's end
	// plus LAG_MS), or a when there is none.
	changed(a, b) {
		let t = a;
		for (let i = 1; i < this.v.length; i++) {
			const v = this.v[i];
			if (v.tStart <= b && v.tEnd + LAG_MS >= a)
				t = Math.max(t, Math.min(b, v.tEnd + LAG_MS));
		}
		return t;
	}

	last() {
		return this.v.length === 0 ? undefined :
		    this.v[this.v.length - 1].value;
	}
}

// A floor: values received at increasing times; best(t) is the largest
// value received strictly before t, with its event.  Only values above
// the current largest are kept.
class Floor {
	constructor() {
		this.t = [];
		this.max = [];
		this.ev = [];
	}

	add(t, value, ev) {
		const n = this.t.length;
		if (n > 0 && this.max[n - 1] >= value)
			return;
		this.t.push(t);
		this.max.push(value);
		this.ev.push(ev);
	}

	best(t) {
		let lo = 0, hi = this.t.length;
		while (lo < hi) {
			const mid = (lo + hi) >> 1;
			if (this.t[mid] < t)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo === 0 ? null : { value: this.max[lo - 1],
		    ev: this.ev[lo - 1] };
	}
}

// What the model knows about one queue.
export class QueueState {
	constructor({ slug, id, secret, key, opensAt, window, created }) {
		this.slug = slug;
		this.id = id;
		this.secrets = [secret];
		this.key = key;
		this.created = created;
		// Scheduled opening: null value = no opening (cancelled).
		this.isDraw = opensAt !== null;
		this.opening = new Versions();
		this.opening.add(created.tStart, created.tEnd, opensAt, true);
		this.window = new Versions();
		this.window.add(created.tStart, created.tEnd, window, true);
		this.L0 = 0;
		this.numbers = new Map();
		this.issuedAt = [];
		this.lastFresh = null;
		this.lost = [];
		this.failed = [];
		this.events = [];
		this.P = this.isDraw ? null : 0;
		this.seed = null;
		this.hashes = [];
		this.posMemo = new Map();
		this.pending = [];
		this.pendingDropped = 0;
		this.tokens = new Floor();
		this.admitted = new Floor();
		this.docs = [];
		this.recent = [];
		this.lastWaiting = 0;
		this.rate = null;
		this.changes = [];	// [tStart, tEnd] of operator changes
		this.retired = false;
	}

	resolved() {
		return this.P !== null && (this.P === 0 || this.seed !== null);
	}

	// pos(n): n's admission position, undefined while not known.
	pos(n) {
		if (this.P === null)
			return undefined;
		if (n > this.P)
			return n;
		if (this.seed === null)
			return undefined;
		let p = this.posMemo.get(n);
		if (p === undefined) {
			p = drawPosition(this.seed, this.P, n);
			this.posMemo.set(n, p);
		}
		return p;
	}

	// certainlyBeforeOpening(t): at t every opening that may be in
	// effect lies ahead.
	certainlyBeforeOpening(t) {
		if (!this.isDraw)
			return false;
		const vals = this.opening.possible(t, t);
		return vals.length > 0 &&
		    vals.every((o) => o !== null && t < o);
	}

	// certainlyOpened(t): every opening that may be in effect at t lies
	// at or before t.
	certainlyOpened(t) {
		const vals = this.opening.possible(t, t);
		return vals.every((o) => o !== null && o <= t);
	}

	latestOpening() {
		return this.opening.last();
	}
}

function fmtT(t, t0) {
	return `+${((t - t0) / 1000).toFixed(3)}s`;
}

export class Oracle {
	constructor({ t0, print = console.log, stopOnFirst = false,
	    onViolation = () => {}, logFile = null, traceFile = null }) {
		this.logFile = logFile;
		this.traceFile = traceFile;
		this.byOp = new Map();
		this.t0 = t0;
		this.print = print;
		this.stopOnFirst = stopOnFirst;
		this.onViolation = onViolation;
		this.queues = new Map();
		this.kinds = new Map();
		this.total = 0;
		this.global = [];
		this.faults = [];
		this.mono = new Map();
		this.staleSteps = 0;
		this.staleChangeSteps = 0;
		this.nextId = 1;
		this.ops = 0;
		this.notes = new Map();
	}

	addQueue(qs) {
		this.queues.set(qs.slug, qs);
	}

	// note(what): count something worth reporting that is no violation.
	note(what, n = 1) {
		this.notes.set(what, (this.notes.get(what) ?? 0) + n);
	}

	// ---- events ------------------------------------------------------

	// event(rec, who): record one request/answer; who = {actor, visitor
	// (object or null), queue (QueueState or null), op, extra}.
	event(rec, { actor, visitor = null, q = null, op, extra = '' }) {
		this.ops++;
		this.byOp.set(op, (this.byOp.get(op) ?? 0) + 1);
		const dur = rec.tRecv - rec.tSend;
		const res = rec.status === 0 ? `ERR ${rec.err}` :
		    String(rec.status);
		const ev = {
			id: this.nextId++, actor, vid: visitor?.id ?? null,
			q: q?.slug ?? null, op, pool: rec.pool,
			tSend: rec.tSend, tRecv: rec.tRecv,
			text: `${actor}${visitor ? '/' + visitor.id : ''} ` +
			    `p${rec.pool} ${rec.method} ${rec.path} -> ${res}` +
			    `${extra ? ' ' + extra : ''} (${dur} ms)`,
		};
		if (q !== null)
			q.events.push(ev);
		if (visitor !== null)
			visitor.events.push(ev);
		return ev;
	}

	// globalEvent(kind, text, tStart, tEnd, slug): an operator action
	// or a fault, for traces.
	globalEvent(actor, text, tStart, tEnd, slug = null) {
		this.ops++;
		this.byOp.set(actor, (this.byOp.get(actor) ?? 0) + 1);
		const ev = { id: this.nextId++, actor, vid: null, q: slug,
		    op: actor, pool: 0, tSend: tStart, tRecv: tEnd,
		    text: `${actor}: ${text} (${tEnd - tStart} ms)` };
		this.global.push(ev);
		return ev;
	}

	// prune(now): forget events too old for any trace.
	prune(now) {
		const cut = now - KEEP_EVENTS_MS;
		for (const q of this.queues.values()) {
			let i = 0;
			while (i < q.events.length && q.events[i].tRecv < cut)
				i++;
			if (i > 0)
				q.events.splice(0, i);
			const rcut = now - RECENT_MS;
			i = 0;
			while (i < q.recent.length && q.recent[i].tRecv < rcut)
				i++;
			if (i > 0)
				q.recent.splice(0, i);
			i = 0;
			while (i < q.docs.length && q.docs[i].u < now - 90000)
				i++;
			if (i > 0)
				q.docs.splice(0, i);
		}
	}

	// ---- violations --------------------------------------------------

	// violation(kind, q, ev, message, {involved, visitor}): record one.
	violation(kind, q, ev, message, { involved = [], visitor = null } =
	    {}) {
		this.total++;
		let k = this.kinds.get(kind);
		if (k === undefined) {
			k = { count: 0, examples: [], best: null, built: 0 };
			this.kinds.set(kind, k);
		}
		k.count++;
		const start = Math.min(visitor?.firstT ?? Infinity,
		    ev.tSend, ...involved.map((e) => e.tSend));
		const span = ev.tRecv - start;
		const v = { kind, q: q?.slug ?? null, message, ev, involved,
		    visitor, t: ev.tRecv, start, span };
		const line = `${fmtT(ev.tRecv, this.t0)} ${q?.slug ?? '-'}: ` +
		    message;
		if (k.examples.length < 3)
			k.examples.push(line);
		if (this.logFile !== null)
			appendFileSync(this.logFile, `${kind}\t${line}\n`);
		if (this.traceFile !== null)
			appendFileSync(this.traceFile, `--- ${kind}: ` +
			    `${line}\n${this.trace(v, q).join('\n')}\n`);
		if (k.built < TRACES_FIRST || k.best === null ||
		    span < k.best.span) {
			k.built++;
			const lines = this.trace(v, q);
			const n = k.best?.lines.length ?? Infinity;
			if (lines.length < n || (lines.length === n &&
			    span < k.best.span))
				k.best = { lines, span, message, q: v.q };
		}
		this.onViolation(v);
	}

	// trace(v, q): the lines of v's trace: from the visitor's first
	// operation (or the first answer involved) to the violation, the
	// visitor's and the observer's own operations, the answers
	// involved, the operator's actions on the queue and every fault;
	// other visitors' joins on the queue too when the window is short.
	trace(v, q) {
		const a = v.start - 1, b = v.t + 1;
		const pick = new Map();
		const add = (e, mark = ' ') => {
			if (!pick.has(e.id))
				pick.set(e.id, { e, mark });
			else if (mark !== ' ')
				pick.get(e.id).mark = mark;
		};
		for (const e of v.visitor?.events ?? [])
			if (e.tSend >= a && e.tSend <= b)
				add(e);
		const short = b - a <= 3000;
		for (const e of q?.events ?? []) {
			if (e.tRecv < a || e.tSend > b)
				continue;
			if (e.actor === v.ev.actor ||
			    (short && /join|enter|json-new/.test(e.op)))
				add(e);
		}
		for (const e of this.global)
			if (e.tRecv >= a && e.tSend <= b &&
			    (e.q === null || e.q === v.q))
				add(e);
		for (const e of v.involved)
			add(e, '*');
		add(v.ev, '!');
		let list = [...pick.values()].sort((x, y) =>
		    x.e.tSend - y.e.tSend || x.e.id - y.e.id);
		if (list.length > TRACE_MAX_LINES) {
			const keep = list.filter((x, i) => x.mark !== ' ' ||
			    x.e.pool === 0 || i < 20 ||
			    i >= list.length - (TRACE_MAX_LINES - 40));
			const cut = list.length - keep.length;
			list = keep;
			list.splice(20, 0, { e: null, mark: ' ', cut });
		}
		return list.map((x) => x.e === null ?
		    `            ... ${x.cut} more operations ...` :
		    `${x.mark} ${fmtT(x.e.tSend, this.t0).padStart(10)} ` +
		    `${x.e.text}`);
	}

	// ---- numbers -----------------------------------------------------

	number(q, n, ev, visitor) {
		const had = q.numbers.get(n);
		if (had !== undefined) {
			this.violation('number-duplicate', q, ev,
			    `number ${n} handed out twice`,
			    { involved: [had], visitor });
			return;
		}
		q.numbers.set(n, ev);
		q.issuedAt.push(ev.tRecv);
	}

	// issuedNear(q, t): numbers handed out on q whose answer came in
	// [t - STALE_BEFORE_MS, t + STALE_AFTER_MS].
	issuedNear(q, t) {
		let n = 0;
		for (const x of q.issuedAt)
			if (x >= t - STALE_BEFORE_MS && x <= t + STALE_AFTER_MS)
				n++;
		return n;
	}

	// changedNear(q, t): an operator change of q's admission was asked
	// for in [t - STALE_CHANGE_MS, t].
	changedNear(q, t) {
		return q.changes.some(([a, b]) => b >= t - STALE_CHANGE_MS &&
		    a <= t);
	}

	// change(q, tStart, tEnd): an operator change of q's admission (rate,
	// pause, resume, claim window, abandonment, opening) was asked for
	// in [tStart, tEnd], whatever its answer.
	change(q, tStart, tEnd) {
		q.changes.push([tStart, tEnd]);
		if (q.changes.length > 64)
			q.changes.shift();
	}

	lostJoin(q, ev) {
		q.lost.push(ev);
	}

	failedJoin(q, ev, rec) {
		q.failed.push(ev);
		if (rec.json !== null && typeof rec.json === 'object' &&
		    (rec.json.number !== undefined ||
		    rec.json.WaitingRoom?.number !== undefined))
			this.violation('failed-with-number', q, ev,
			    `a failed answer (${rec.status}) carries a number`);
	}

	// ---- answers -----------------------------------------------------

	// observe(o): one answer; o = {ev, q, actor, visitor, serving,
	// stale, number, admitted, position, token (its qnr)}; undefined
	// fields are absent from the answer.
	observe(o) {
		const { q, ev } = o;
		// A queue armed against the rules is out of the model.
		if (q.tainted)
			return;
		if (o.serving !== undefined)
			this.checkMonotone(o);
		if (q.certainlyBeforeOpening(ev.tRecv)) {
			if (o.admitted === true || o.token !== undefined ||
			    (o.serving !== undefined && o.serving > 0))
				this.violation('before-opening', q, ev,
				    `before the opening: ` +
				    `${o.token !== undefined ? 'a token for ' +
				    o.token : ''}${o.admitted === true ?
				    ' admitted' : ''} serving ${o.serving}`,
				    { visitor: o.visitor });
		}
		if (!o.stale && o.serving !== undefined)
			this.checkAnswerVsDocs(o);
		if (q.resolved())
			this.positional(o);
		else if (q.pending.length < 200000)
			q.pending.push(o);
		else
			q.pendingDropped++;
	}

	// checkMonotone(o): serving never below what this observer was
	// shown before on this queue.
	checkMonotone(o) {
		const key = `${o.actor}|${o.q.slug}`;
		let m = this.mono.get(key);
		if (m === undefined) {
			m = { all: -1, allEv: null, allStale: false, fresh: -1,
			    freshEv: null };
			this.mono.set(key, m);
		}
		if (!o.stale)
			o.q.lastFresh = o.ev.tRecv;
		if (o.serving < m.all) {
			const stale = o.stale || o.serving >= m.fresh;
			const before = o.serving < m.fresh ? m.freshEv :
			    m.allEv;
			const was = o.serving < m.fresh ? m.fresh : m.all;
			// Within the documented bound of stale answers.
			if (stale && o.q.lastFresh !== null && was -
			    o.serving <= this.issuedNear(o.q, o.q.lastFresh))
				this.staleSteps++;
			// A copy that read (or missed) an operator's change
			// just before the outage ran ahead of the others; the
			// observer that saw it is behind it until the queue
			// catches up, whenever this answer comes.
			else if (stale && (this.changedNear(o.q, o.ev.tRecv) ||
			    (o.serving >= m.fresh && m.allStale &&
			    this.changedNear(o.q, m.allEv.tRecv))))
				this.staleChangeSteps++;
			else
				this.violation(stale ?
				    'serving-backward-stale' : 'serving-backward',
				    o.q, o.ev, `${o.actor} was shown serving ` +
				    `${was}${before === m.allEv && m.allStale ?
				    ' (stale)' : ''}, now ${o.serving}` +
				    `${o.stale ? ' (stale)' : ''}`,
				    { involved: [before], visitor: o.visitor });
		}
		if (o.serving > m.all) {
			m.all = o.serving;
			m.allEv = o.ev;
			m.allStale = o.stale;
		}
		if (!o.stale && o.serving > m.fresh) {
			m.fresh = o.serving;
			m.freshEv = o.ev;
		}
	}

	// checkAnswerVsDocs(o): a non-stale answer sent after a poll
	// document's updatedAt is not below the document's serving.
	checkAnswerVsDocs(o) {
		const { q, ev } = o;
		let worst = null;
		for (const d of q.docs)
			if (d.u + DOC_SLACK_MS < ev.tSend && d.s > o.serving &&
			    (worst === null || d.s > worst.s))
				worst = d;
		if (worst !== null)
			this.violation('doc-vs-answer', q, ev,
			    `serving ${o.serving} in an answer sent ` +
			    `${ev.tSend - worst.u} ms after state.json's ` +
			    `updatedAt, which said ${worst.s}`,
			    { involved: [worst.ev], visitor: o.visitor });
		q.recent.push({ tSend: ev.tSend, tRecv: ev.tRecv,
		    s: o.serving, ev });
	}

	// doc(q, ev, doc, visitor): a poll document {serving, updatedAt,
	// ...} fetched as ev.
	doc(q, ev, d, visitor) {
		const u = d.updatedAt, s = d.serving;
		if (q.tainted)
			return;
		if (typeof u !== 'number' || typeof s !== 'number')
			return;
		if (q.certainlyBeforeOpening(u) && s > 0)
			this.violation('before-opening', q, ev, `state.json ` +
			    `updatedAt ${u - this.t0} says serving ${s} ` +
			    `before the opening`, { visitor });
		if (q.docs.some((x) => x.u === u))
			return;
		for (const x of q.docs)
			if ((x.u < u && x.s > s) || (x.u > u && x.s < s)) {
				this.violation('doc-backward', q, ev,
				    `state.json at ${fmtT(u, this.t0)} says ` +
				    `${s}, at ${fmtT(x.u, this.t0)} ${x.s}`,
				    { involved: [x.ev], visitor });
				break;
			}
		let hi = null, lo = null;
		for (const a of q.recent) {
			if (a.tRecv < u - DOC_SLACK_MS && a.s > s &&
			    (hi === null || a.s > hi.s))
				hi = a;
			if (a.tSend > u + DOC_SLACK_MS && a.s < s &&
			    (lo === null || a.s < lo.s))
				lo = a;
		}
		if (hi !== null)
			this.violation('doc-vs-answer', q, ev,
			    `state.json's serving ${s} at its updatedAt is ` +
			    'below serving ' +
			    `${hi.s} answered ${u - hi.tRecv} ms before`,
			    { involved: [hi.ev], visitor });
		if (lo !== null)
			this.violation('doc-vs-answer', q, ev,
			    `state.json's serving ${s} at its updatedAt is ` +
			    'above serving ' +
			    `${lo.s} in an answer sent ${lo.tSend - u} ms ` +
			    'after it', { involved: [lo.ev], visitor });
		if (q.resolved()) {
			const f = q.tokens.best(u - DOC_SLACK_MS);
			if (f !== null && f.value > s)
				this.violation('doc-vs-answer', q, ev,
				    `state.json's serving ${s} is below ` +
				    `position ${f.value}, whose token was ` +
				    'received before its updatedAt',
				    { involved: [f.ev], visitor });
		}
		let i = q.docs.length;
		while (i > 0 && q.docs[i - 1].u > u)
			i--;
		q.docs.splice(i, 0, { u, s, ev });
	}

	// positional(o): the checks that need positions.
	positional(o) {
		const { q, ev } = o;
		let p;
		if (o.number !== undefined) {
			p = q.pos(o.number);
			if (p === undefined)
				return;
		}
		if (o.token !== undefined) {
			const tp = q.pos(o.token);
			if (tp === undefined)
				return;
			if ((o.serving !== undefined && o.serving < tp) ||
			    o.admitted === false)
				this.violation('token-unadmitted', q, ev,
				    `a token for ${o.token} (position ${tp}) ` +
				    'in an answer saying serving ' +
				    `${o.serving}, admitted ${o.admitted}`,
				    { visitor: o.visitor });
			q.tokens.add(ev.tRecv, tp, ev);
			q.admitted.add(ev.tRecv, tp, ev);
		}
		// position null: the server says the place is not drawn
		// yet (a pre-queue no join and no worker has closed since
		// the opening); it must not admit then, whatever serving is.
		const undrawn = o.position === null && o.admitted === false;
		if (o.number !== undefined && o.serving !== undefined &&
		    o.admitted !== undefined && !undrawn &&
		    o.admitted !== (p <= o.serving))
			this.violation('admitted-mismatch', q, ev,
			    `number ${o.number} (position ${p}) said ` +
			    `admitted ${o.admitted} with serving ${o.serving}` +
			    `${o.stale ? ' (stale)' : ''}`,
			    { visitor: o.visitor });
		if (o.number !== undefined && typeof o.position === 'number' &&
		    o.position !== p)
			this.violation('position-mismatch', q, ev,
			    `number ${o.number}: position ${o.position} ` +
			    `answered, the published draw gives ${p}`,
			    { visitor: o.visitor });
		if (o.stale)
			return;
		if (o.serving !== undefined) {
			const f = q.tokens.best(ev.tSend);
			if (f !== null && o.serving < f.value)
				this.violation('serving-below-token', q, ev,
				    `serving ${o.serving} in an answer sent ` +
				    `after a token for position ${f.value} ` +
				    'was received',
				    { involved: [f.ev], visitor: o.visitor });
		}
		if (o.number !== undefined && o.admitted === false) {
			const f = q.admitted.best(ev.tSend);
			if (f !== null && f.value >= p)
				this.violation('order', q, ev,
				    `number ${o.number} (position ${p}) said ` +
				    `not admitted after position ${f.value} ` +
				    'was seen admitted', { involved: [f.ev],
				    visitor: o.visitor });
		}
		if (o.number !== undefined && o.admitted === true)
			q.admitted.add(ev.tRecv, p, ev);
	}

	// learnDraw(q, info, ev): what an /info answer says about the draw.
	learnDraw(q, info, ev) {
		if (!q.isDraw || q.resolved())
			return;
		const created = q.created.tEnd + LAG_MS;
		if (info.opensAt === undefined && ev.tSend > created &&
		    !info.stale) {
			// The opening was cancelled (perhaps by a command that
			// reported a failure): no pre-queue.
			q.P = 0;
			this.note(`${q.slug}: opening cancelled`);
			this.drain(q);
			return;
		}
		if (typeof info.drawSeedSha256 === 'string' &&
		    q.certainlyBeforeOpening(ev.tRecv))
			q.hashes.push({ t: ev.tSend, hash: info.drawSeedSha256,
			    ev });
		if (typeof info.preQueue === 'number' && q.P === null)
			q.P = info.preQueue;
		if (typeof info.drawSeed === 'string' && q.seed === null &&
		    q.P !== null) {
			const seed = Buffer.from(info.drawSeed, 'hex');
			q.seed = seed;
			this.checkCommitment(q, seed, ev);
		}
		if (q.resolved())
			this.drain(q);
	}

	// checkCommitment(q, seed, ev): the seed hashes to what was published
	// before the opening (after the last change of the opening).
	checkCommitment(q, seed, ev) {
		// The last change (also one that reported a failure).
		const last = q.opening.v[q.opening.v.length - 1];
		const since = last.tEnd + LAG_MS;
		const seen = q.hashes.filter((h) => h.t > since);
		const hash = sha256hex(seed);
		if (seen.length === 0) {
			this.note(`${q.slug}: no seed hash seen before the ` +
			    `opening`);
			return;
		}
		const bad = seen.find((h) => h.hash !== hash);
		if (bad !== undefined)
			this.violation('draw-commitment', q, ev,
			    'the published seed hashes to ' +
			    `${hash.slice(0, 12)}..., before the opening ` +
			    `${bad.hash.slice(0, 12)}... was published`,
			    { involved: [bad.ev] });
	}

	drain(q) {
		const list = q.pending;
		q.pending = [];
		for (const o of list)
			this.positional(o);
	}

	// ---- the report --------------------------------------------------

	report() {
		const out = [];
		const kinds = [...this.kinds.entries()].sort((a, b) =>
		    b[1].count - a[1].count);
		for (const [kind, k] of kinds) {
			out.push(`violation ${kind}: ${k.count}`);
			for (const ex of k.examples)
				out.push(`    e.g. ${ex}`);
		}
		return out;
	}

	traces() {
		const out = [];
		for (const [kind, k] of this.kinds) {
			if (k.best === null)
				continue;
			out.push(`--- shortest trace of ${kind} (queue ` +
			    `${k.best.q}): ${k.best.message}`);
			out.push(...k.best.lines);
		}
		return out;
	}
}

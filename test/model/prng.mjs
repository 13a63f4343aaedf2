// test/model/prng.mjs - the seeded pseudo-random numbers that drive the
// model run: mulberry32 (32-bit state), and the draws the schedule is
// made of.  Every actor forks its own stream from the run's seed and its
// name, so an actor's choices do not depend on how the others were
// scheduled.

// mulberry32(seed): a function returning floats in [0, 1).
export function mulberry32(seed) {
	let a = seed >>> 0;
	return function next() {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

// fnv1a(str, basis): the 32-bit FNV-1a hash of str, starting from basis.
function fnv1a(str, basis = 0x811c9dc5) {
	let h = basis >>> 0;
	for (let i = 0; i < str.length; i++) {
		h ^= str.charCodeAt(i);
		h = Math.imul(h, 0x01000193) >>> 0;
	}
	return h;
}

export class Rng {
	constructor(seed) {
		this.seed = seed >>> 0;
		this.next = mulberry32(this.seed);
	}

	// fork(label): an independent stream for label.
	fork(label) {
		return new Rng(fnv1a(String(label), this.seed ^ 0x9e3779b9));
	}

	float() {
		return this.next();
	}

	// int(lo, hi): an integer in [lo, hi].
	int(lo, hi) {
		return lo + Math.floor(this.next() * (hi - lo + 1));
	}

	// uniform(lo, hi): a float in [lo, hi).
	uniform(lo, hi) {
		return lo + this.next() * (hi - lo);
	}

	chance(p) {
		return this.next() < p;
	}

	pick(arr) {
		return arr[Math.floor(this.next() * arr.length)];
	}

	// weighted({name: weight, ...}): a name, with probability
	// proportional to its weight (weights <= 0 are never picked).
	weighted(weights) {
		let total = 0;
		for (const w of Object.values(weights))
			total += Math.max(0, w);
		let x = this.next() * total;
		let last = null;
		for (const [k, w] of Object.entries(weights)) {
			if (w <= 0)
				continue;
			last = k;
			if (x < w)
				return k;
			x -= w;
		}
		return last;
	}

	// exp(mean): an exponentially distributed delay with that mean.
	exp(mean) {
		return -Math.log(1 - this.next()) * mean;
	}
}

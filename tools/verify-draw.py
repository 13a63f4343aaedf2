#!/usr/bin/env python3
"""verify-draw.py - recompute a scheduled opening's fair draw.

The waiting room publishes, before the opening, drawSeedSha256 (SHA-256
of a secret 32-byte seed) and, after it, drawSeed (the seed, 64 hex
digits) and preQueue (P, how many numbers the pre-queue took), in
GET /queue/<slug>/info.  With those this script recomputes the whole
admission order of the pre-queue and checks the seed against its
published hash.  Standard library only.

  tools/verify-draw.py --seed HEX --pre-queue P [--hash HEX]
                       [--number N] [--order] [--json]

The permutation (as fcgi-app/lib/draw.h documents it): numbers 1..P are
indices x = 0..P-1; pi is a Feistel network of 6 rounds over 2h bits,
2^(2h) the smallest even power of two >= P (h >= 1), with cycle
walking; round i maps (L, R) to (R, L xor F) where F is the first 8
bytes (big-endian) of HMAC-SHA256(seed, b"aditus-draw" || i (1 byte) ||
P (8 bytes) || R (8 bytes)) mod 2^h.  Number n <= P is admitted at
position pi(n - 1) + 1; numbers after P keep their own.
"""

import argparse
import hashlib
import hmac
import json
import sys

ROUNDS = 6


def pi(seed, p, x):
    """The drawn index of index x in [0, p)."""
    bits = max(p - 1, 0).bit_length()
    h = 1 if bits < 2 else (bits + 1) // 2
    mask = (1 << h) - 1
    y = x
    while True:
        left, right = y >> h, y & mask
        for i in range(ROUNDS):
            msg = (b"aditus-draw" + bytes([i]) + p.to_bytes(8, "big") +
                   right.to_bytes(8, "big"))
            f = int.from_bytes(
                hmac.new(seed, msg, hashlib.sha256).digest()[:8],
                "big") & mask
            left, right = right, left ^ f
        y = (left << h) | right
        if y < p:
            return y


def position(seed, p, n):
    """Admission position of number n (>= 1)."""
    return pi(seed, p, n - 1) + 1 if n <= p else n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", required=True, help="drawSeed, 64 hex")
    ap.add_argument("--pre-queue", type=int, required=True,
                    help="preQueue, P")
    ap.add_argument("--hash", help="drawSeedSha256 published before")
    ap.add_argument("--number", type=int, help="your number")
    ap.add_argument("--order", action="store_true",
                    help="print the pre-queue numbers in admission order")
    ap.add_argument("--json", action="store_true",
                    help="print {positions: [...]} for numbers 1..P")
    a = ap.parse_args()
    try:
        seed = bytes.fromhex(a.seed)
    except ValueError:
        seed = b""
    if len(seed) != 32:
        sys.exit("verify-draw: the seed must be 64 hex digits")
    if a.pre_queue < 0:
        sys.exit("verify-draw: the pre-queue size must be >= 0")
    digest = hashlib.sha256(seed).hexdigest()
    if a.hash is not None:
        if not hmac.compare_digest(digest, a.hash.lower()):
            print("seed does NOT match the published hash %s (it hashes "
                  "to %s)" % (a.hash, digest))
            return 1
        print("seed matches the published hash %s" % digest)
    p = a.pre_queue
    if a.json:
        print(json.dumps({"preQueue": p, "positions":
                          [position(seed, p, n) for n in range(1, p + 1)]}))
    if a.order:
        order = [0] * p
        for n in range(1, p + 1):
            order[position(seed, p, n) - 1] = n
        for k, n in enumerate(order, 1):
            print("%d\t%d" % (k, n))
    if a.number is not None:
        if a.number < 1:
            sys.exit("verify-draw: numbers start at 1")
        print("number %d is admitted at position %d" %
              (a.number, position(seed, p, a.number)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

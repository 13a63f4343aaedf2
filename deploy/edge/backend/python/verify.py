"""verify.py - check an aditus-queue pass in a Python backend with PyJWT
(Debian: python3-jwt; pip: PyJWT):

    from verify import verify_pass
    claims = verify_pass(token, secret, "sale")
    if claims is None: send the visitor to the waiting room

Only HS256; issuer aditus-queue; audience the queue's slug; exp checked.

Run as a script it checks tokens read as a JSON list of {"name", "token"}
from standard input and prints [{"name", "valid"}] (used by the tests):
    python3 verify.py SECRET QUEUE < tokens.json
"""
import json
import sys

import jwt


def verify_pass(token, secret, queue):
    """The token's claims when it is a valid pass for queue, else None."""
    try:
        return jwt.decode(token, secret, algorithms=["HS256"],
                          issuer="aditus-queue", audience=queue,
                          options={"require": ["exp", "iss", "aud"]})
    except jwt.PyJWTError:
        return None


if __name__ == "__main__":
    secret, queue = sys.argv[1], sys.argv[2]
    out = [{"name": v["name"],
            "valid": verify_pass(v["token"], secret, queue) is not None}
           for v in json.load(sys.stdin)]
    json.dump(out, sys.stdout)

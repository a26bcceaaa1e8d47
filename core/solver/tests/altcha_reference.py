"""The ALTCHA reference implementation (PyPI's altcha, which scripts/setup.sh installs
into .tools/python), for tests to check our solver and our server against something
that is not our own code. Three commands:

    python altcha_reference.py solve < challenge.json
        solves a challenge (JSON, as GET /api/waitlist/challenge answers) and prints the
        payload a form sends in its `altcha` field (base64 of {"challenge", "solution"});
    python altcha_reference.py create SECRET COST COUNTER
        prints a deterministic PBKDF2/SHA-256 challenge signed with SECRET, expiring in
        ten minutes;
    python altcha_reference.py verify SECRET < payload
        prints "verified" if the payload (base64) solves a challenge signed with SECRET,
        else the reference's findings, and exits 1.
"""

import json
import sys
import time

from altcha import Challenge, Payload, create_challenge, solve_challenge, verify_solution


def solve():
    challenge = Challenge.from_dict(json.load(sys.stdin))
    solution = solve_challenge(challenge, timeout=60)
    if solution is None:
        sys.exit("no solution within 60 s")
    print(Payload(challenge, solution).to_base64())


def create(secret, cost, counter):
    challenge = create_challenge(
        "PBKDF2/SHA-256",
        int(cost),
        counter=int(counter),
        expires_at=int(time.time()) + 600,
        hmac_secret=secret,
    )
    print(json.dumps(challenge.to_dict()))


def verify(secret):
    result = verify_solution(sys.stdin.read().strip(), secret)
    if not result.verified:
        sys.exit(f"not verified: {result}")
    print("verified")


if __name__ == "__main__":
    command, *arguments = sys.argv[1:]
    {"solve": solve, "create": create, "verify": verify}[command](*arguments)

"""Solves an ALTCHA v2 challenge with the reference implementation (PyPI's altcha), not
with the server's own code: reads the challenge as GET /api/waitlist/challenge answers
it (JSON) on standard input, and prints the payload a form sends in its `altcha` field
(base64 of {"challenge", "solution"}).

    python altcha_solve.py < challenge.json
"""

import json
import sys

from altcha import Challenge, Payload, solve_challenge


def main():
    challenge = Challenge.from_dict(json.load(sys.stdin))
    solution = solve_challenge(challenge, timeout=60)
    if solution is None:
        sys.exit("no solution within 60 s")
    print(Payload(challenge, solution).to_base64())


if __name__ == "__main__":
    main()

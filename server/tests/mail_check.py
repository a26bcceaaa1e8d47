"""Reads the emails the SMTP sink caught as a receiving mail system reads them, and says
what it finds: one JSON object a file, on standard output.

    python3 mail_check.py [--dkim-record TEXT] [--spamassassin] FILE...

- the message parsed by Python's own mail parser with its strict policy (a defect is an error);
- the headers receivers ask for: Message-ID, Date, MIME-Version, the text's type and
  charset, the one-click unsubscribe headers;
- with --dkim-record (the DNS TXT record's text `lathe-site dkim-record` prints): the
  DKIM signature verified by dkimpy, DKIM's reference implementation (Debian's
  python3-dkim; PyNaCl for Ed25519), with that record as the DNS answer; then again with
  one byte of the body changed, and with the Subject changed, both of which must fail;
- with --spamassassin: SpamAssassin's score and the rules that fired (`spamassassin -L -t`:
  local rules only, no network), in a home folder of its own.

Each FILE is the sink's .eml: its first line (X-Envelope-To, the sink's) is not part of
the message as sent, and is dropped.
"""

import argparse
import email
import email.policy
import email.utils
import json
import os
import re
import subprocess
import sys
import tempfile

import dkim


def message_of(path):
    with open(path, "rb") as f:
        raw = f.read()
    first, rest = raw.split(b"\r\n", 1)
    assert first.startswith(b"X-Envelope-To: "), path
    return rest


def dkim_verifies(raw, record):
    def dns(name, timeout=5):
        # The one record asked for: SELECTOR._domainkey.DOMAIN.
        return record.encode() if b"._domainkey." in name else None

    return bool(dkim.verify(raw, dnsfunc=dns))


def tampered_body(raw):
    head, body = raw.split(b"\r\n\r\n", 1)
    i = next(i for i, b in enumerate(body) if chr(b).isalpha())
    swapped = bytes([body[i] ^ 0x20])  # the same letter in the other case
    return head + b"\r\n\r\n" + body[:i] + swapped + body[i + 1 :]


def tampered_subject(raw):
    return re.sub(rb"(?m)^Subject: ", b"Subject: Re: ", raw, count=1)


def spamassassin(raw):
    with tempfile.TemporaryDirectory() as home:
        out = subprocess.run(
            ["spamassassin", "-L", "-t"],
            input=raw,
            capture_output=True,
            env={**os.environ, "HOME": home},
            check=True,
        ).stdout
    status = email.message_from_bytes(out, policy=email.policy.default)["X-Spam-Status"]
    status = " ".join(str(status).split())
    score = float(re.search(r"score=(-?[0-9.]+)", status).group(1))
    tests = re.search(r"tests=(\S*)", status).group(1)
    return {"score": score, "rules": [t for t in tests.split(",") if t and t != "none"]}


def check(path, record, spam):
    raw = message_of(path)
    parsed = email.message_from_bytes(raw, policy=email.policy.strict)
    headers = {
        name: str(parsed[name])
        for name in [
            "From",
            "To",
            "Subject",
            "Date",
            "Message-ID",
            "MIME-Version",
            "Content-Type",
            "Content-Transfer-Encoding",
            "List-Unsubscribe",
            "List-Unsubscribe-Post",
            "DKIM-Signature",
        ]
        if parsed[name] is not None
    }
    counts = {name: len(parsed.get_all(name) or []) for name in headers}
    date = parsed["Date"]
    result = {
        "file": path,
        "headers": headers,
        "counts": counts,
        "message_id_well_formed": bool(
            re.fullmatch(r"<[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9.-]+>", headers.get("Message-ID", ""))
        ),
        "date": date.datetime.isoformat() if date is not None and date.datetime else None,
        "content_type": parsed.get_content_type(),
        "charset": parsed.get_content_charset(),
        "text": parsed.get_content(),
    }
    if record is not None:
        result["dkim"] = {
            "verifies": dkim_verifies(raw, record),
            "body_changed_verifies": dkim_verifies(tampered_body(raw), record),
            "subject_changed_verifies": dkim_verifies(tampered_subject(raw), record),
        }
    if spam:
        result["spamassassin"] = spamassassin(raw)
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dkim-record")
    parser.add_argument("--spamassassin", action="store_true")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    for path in args.files:
        print(json.dumps(check(path, args.dkim_record, args.spamassassin)), flush=True)


if __name__ == "__main__":
    sys.exit(main())

"""A webhook receiver for the tests that checks every delivery with the Standard Webhooks
reference library (PyPI's standardwebhooks), not with the server's own code: each request
is verified (signature, timestamp, headers) before anything else. Every attempt is
appended to DIR/attempts.log as "ID STATUS"; each verified event it accepts is written
to DIR/NNNN.json as {"id": ..., "event": ...}. DIR/answers, when present, holds the
statuses to answer next, one a line, each used once (503, 410, ...); without it, 204.

    python webhook_sink.py DIR PORT SECRET

It prints "listening on 127.0.0.1:PORT" once it listens, and runs until it is killed.
"""

import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from threading import Lock

from standardwebhooks.webhooks import Webhook, WebhookVerificationError


def main():
    folder, port, secret = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    webhook = Webhook(secret)
    lock = Lock()

    def next_answer():
        path = os.path.join(folder, "answers")
        if not os.path.exists(path):
            return 204
        with open(path) as f:
            lines = [line for line in f.read().split() if line]
        if not lines:
            return 204
        with open(path, "w") as f:
            f.write("\n".join(lines[1:]))
        return int(lines[0])

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            headers = {k: v for k, v in self.headers.items()}
            with lock:
                try:
                    event = webhook.verify(body, headers)
                    status = next_answer()
                except WebhookVerificationError as e:
                    event, status = None, 400
                    sys.stderr.write(f"not verified: {e}\n")
                with open(os.path.join(folder, "attempts.log"), "a") as log:
                    log.write(f"{headers.get('webhook-id', '-')} {status}\n")
                if event is not None and 200 <= status < 300:
                    n = len([f for f in os.listdir(folder) if f.endswith(".json")]) + 1
                    path = os.path.join(folder, f"{n:04}.json")
                    with open(path + ".part", "w") as out:
                        json.dump({"id": headers["webhook-id"], "event": event}, out)
                    os.rename(path + ".part", path)
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    # SO_REUSEPORT: the test holds this port (a socket bound with it that never listens)
    # while the receiver is down, so that nothing else takes it.
    ThreadingHTTPServer.allow_reuse_port = True
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"listening on 127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()

"""A real SMTP server for the tests (aiosmtpd, Debian's python3-aiosmtpd): every message
it accepts is written whole to DIR as NNNN.eml, in the order they came, and its text,
decoded as a mail client shows it, beside it as NNNN.txt. Mail to nobody@... is refused
for good (550), as a mailbox that does not exist is; mail to later@... is deferred once
(451), as greylisting does; mail to slow@... gets no answer for 15 s, once.

    python3 smtp_sink.py DIR PORT

PORT 0 lets the system pick one. It prints "listening on 127.0.0.1:PORT" once it listens,
and runs until it is killed.
"""

import asyncio
import email
import email.policy
import itertools
import os
import socket
import sys

from aiosmtpd.smtp import SMTP


class Sink:
    def __init__(self, folder):
        self.folder = folder
        taken = [int(name.split(".")[0]) for name in os.listdir(folder) if name.endswith(".eml")]
        self.numbers = itertools.count(max(taken, default=0) + 1)
        self.deferred = set()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        # A mailbox that does not exist, for the tests of a refusal for good (5xx).
        if address.startswith("nobody@"):
            # As Postfix says it, quoting the address.
            return f"550 5.1.1 <{address}>: Recipient address rejected"
        # A server that does not answer in time, the first time (the client gives up).
        if address.startswith("slow@") and address not in self.deferred:
            self.deferred.add(address)
            await asyncio.sleep(15)
            return "451 4.4.2 Too late"
        # A server too busy for it the first time (a 4xx), as greylisting does.
        if address.startswith("later@") and address not in self.deferred:
            self.deferred.add(address)
            return "451 4.7.1 Greylisted, please try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        path = os.path.join(self.folder, f"{next(self.numbers):04}.eml")
        # Written under another name, then renamed: a reader never sees half a message.
        with open(path + ".part", "wb") as out:
            out.write(b"X-Envelope-To: " + ",".join(envelope.rcpt_tos).encode() + b"\r\n")
            out.write(envelope.original_content)
        os.rename(path + ".part", path)
        message = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        with open(path[: -len(".eml")] + ".txt", "w", encoding="utf-8") as out:
            out.write(f"To: {message['To']}\nSubject: {message['Subject']}\n\n")
            out.write(message.get_content())
        return "250 OK"


async def serve(folder, port):
    # SO_REUSEPORT: the test holds this port (a socket bound with it that never listens)
    # while the server is down, so that nothing else takes it.
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(("127.0.0.1", port))
    sink = Sink(folder)
    server = await asyncio.get_running_loop().create_server(
        lambda: SMTP(sink, hostname="127.0.0.1"), sock=sock
    )
    print(f"listening on 127.0.0.1:{sock.getsockname()[1]}", flush=True)
    await server.serve_forever()


def main():
    folder, port = sys.argv[1], int(sys.argv[2])
    asyncio.run(serve(folder, port))


if __name__ == "__main__":
    main()

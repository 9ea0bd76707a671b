"""What one small write costs the writer, over loopback TCP to another process, when the
reader is busy (back to back) and when it sleeps between writes (paced, as a paced player's
socket): the paced cost is that of waking the reader, paid in the writer's CPU time.

``python bench/wakeup.py [--writes 20000] [--pause-ms 1] [--size 300]``. It explains why a
paced move costs the hub about twice a saturated one (docs/scaling.md): a move's three or
four writes each wake a sleeping client process. Both figures come from the same run.
"""

from __future__ import annotations

import argparse
import os
import socket
import time


def cpu_per_send(sock: socket.socket, data: bytes, count: int, pause_s: float) -> float:
    """The writer's CPU microseconds per send (process time: user and system)."""
    spent = 0.0
    for _ in range(count):
        t0 = time.process_time()
        sock.send(data)
        spent += time.process_time() - t0
        if pause_s:
            time.sleep(pause_s)
    return spent / count * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=20_000)
    parser.add_argument("--pause-ms", type=float, default=1.0)
    parser.add_argument("--size", type=int, default=300, help="bytes a write (a move event)")
    args = parser.parse_args()
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    child = os.fork()
    if child == 0:  # the reader: drains until the writer closes
        conn, _ = server.accept()
        while conn.recv(65536):
            pass
        os._exit(0)
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    data = b"x" * args.size
    busy = cpu_per_send(sock, data, args.writes, 0.0)
    paced = cpu_per_send(sock, data, max(1, args.writes // 10), args.pause_ms / 1000)
    sock.close()
    os.waitpid(child, 0)
    print(f"{args.size}-byte writes to another process over loopback TCP, writer's CPU:")
    print(f"  back to back (the reader busy)     {busy:6.1f} us a write   (baseline)")
    print(f"  {args.pause_ms:g} ms apart (the reader asleep)  {paced:6.1f} us a write")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""silent_server.py PORTFILE: a server that takes connections and never answers.

Listens on a free loopback port, writes its number to PORTFILE once it
listens, and holds every connection open without reading or writing, as a
hung debuginfod server does, until it is killed.
"""
import os
import socket
import sys

server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(64)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(f"{server.getsockname()[1]}\n")
# renamed once whole: the test reads it as soon as it exists
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
held = []
while True:
    conn, _ = server.accept()
    held.append(conn)

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A process tree for tools/afunix-run: this shell starts a python3 server, and socat
# and python3 clients of it, over a pathname and an abstract name; it prints what they
# exchange and read back. The `launcher` test compares the output of a plain run
# (AF_UNIX) and of a run under afunix-run (the module's family).
#
#	run_tree.sh DIR unix|rust_afunix
set -eu
dir=$1 expect=$2
py=/usr/bin/python3
rm -f "$dir/ready" "$dir/tree.sock"
mkfifo "$dir/ready"

# The server: a stream listener on a pathname, a datagram socket on an abstract name;
# says "ready" once both are bound, serves two connections and one datagram. Its output
# is shown after it exits, so that the clients' lines do not interleave with it.
"$py" - "$dir" "$expect" >"$dir/server.out" <<'PY' &
import os, socket, sys
d, expect = sys.argv[1], sys.argv[2]
def listed(sock):
    ino = str(os.fstat(sock.fileno()).st_ino)
    rows = {f: [l.split() for l in open("/proc/net/" + f)] for f in ("unix", "rust_afunix")}
    return [f for f in rows if any(len(r) > 6 and r[6] == ino for r in rows[f])]
l = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
l.bind(os.path.join(d, "tree.sock"))
l.listen()
g = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
g.bind("\0afunix-run-tree")
open(os.path.join(d, "ready"), "w").write("ready\n")
print("server: listening on", l.getsockname().replace(d, "DIR"), "family", l.family.name,
      "listed in", listed(l) == [expect])
for i in range(2):
    c, addr = l.accept()
    data = c.recv(100)
    c.sendall(data.upper())
    print("server: connection", i, "from", repr(addr), "sent", data, "accepted listed in",
          listed(c) == [expect])
    c.close()
data, addr = g.recvfrom(100)
# An autobound name: abstract (bytes in Python), five hex digits.
print("server: datagram", data, "from", type(addr).__name__, len(addr))
PY
server=$!
read -r _ <"$dir/ready"

# Client 1: socat, a connection.
echo "from socat" | socat - "UNIX-CONNECT:$dir/tree.sock"
# Client 2: python3, a connection and a datagram from an autobound socket.
"$py" - "$dir" "$expect" <<'PY'
import os, socket, sys
d, expect = sys.argv[1], sys.argv[2]
c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
c.connect(os.path.join(d, "tree.sock"))
c.sendall(b"from python")
print("client:", c.recv(100), "peer", c.getpeername().replace(d, "DIR"),
      "SO_DOMAIN", c.getsockopt(socket.SOL_SOCKET, socket.SO_DOMAIN))
g = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
g.bind("")
name = g.getsockname()
print("client: autobound", type(name).__name__, len(name))
g.sendto(b"datagram", "\0afunix-run-tree")
PY
wait $server
cat "$dir/server.out"
echo "tree: done"

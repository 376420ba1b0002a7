"""Misbehaving HTTP peers on 127.0.0.1 for the fetch deadline/completeness tests (Python 2.7 and 3).

Each peer is a raw socket server whose handler writes `script(conn)`: drip a byte at a time,
stall, stream forever, cut a body short, end a chunked body without its last chunk, or answer
something that is not HTTP. Only threads of this process; stop() closes everything.
"""
import socket
import threading
import time


class BadPeer(object):
    def __init__(self, script):
        self.script = script
        self.stopped = threading.Event()
        self.connections = 0
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self._sock.settimeout(0.1)
        self.port = self._sock.getsockname()[1]
        self._thread = threading.Thread(target=self._serve)
        self._thread.daemon = True
        self._thread.start()

    def _serve(self):
        while not self.stopped.is_set():
            try:
                conn, _ = self._sock.accept()
            except socket.timeout:
                continue
            except (OSError, socket.error):
                return
            self.connections += 1
            t = threading.Thread(target=self._handle, args=(conn,))
            t.daemon = True
            t.start()

    def _handle(self, conn):
        try:
            conn.settimeout(5)
            data = b""
            while b"\r\n\r\n" not in data:
                got = conn.recv(4096)
                if not got:
                    return
                data += got
            self.script(conn, self)
        except (OSError, socket.error):
            pass
        finally:
            try:
                conn.close()
            except (OSError, socket.error):
                pass

    def stop(self):
        self.stopped.set()
        self._sock.close()
        self._thread.join(2)


def head(length=None, chunked=False):
    lines = ["HTTP/1.1 200 OK", "Content-Type: text/plain; version=0.0.4; charset=utf-8"]
    if length is not None:
        lines.append("Content-Length: %d" % length)
    if chunked:
        lines.append("Transfer-Encoding: chunked")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii")


def drip(body, interval=0.1, before_headers=False):
    """Sends one byte every `interval` s: every recv gets data, so only an overall deadline helps."""
    data = head(len(body)) + body

    def script(conn, peer):
        for i in range(len(data)):
            if peer.stopped.is_set():
                return
            conn.sendall(data[i:i + 1])
            time.sleep(interval)
    return script


def stall(conn, peer):
    """Reads the request, never answers."""
    peer.stopped.wait(30)


def endless(conn, peer):
    """Headers without a length, then metrics lines forever."""
    conn.sendall(head())
    line = b'mm2_herder_up{source="A",target="B",version="3.9.0"} 1.0\n' * 100
    while not peer.stopped.is_set():
        conn.sendall(line)


def fixed(data):
    def script(conn, peer):
        conn.sendall(data)
    return script

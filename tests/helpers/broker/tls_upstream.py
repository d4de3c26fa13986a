#!/usr/bin/env python3
"""A TLS upstream on 127.0.0.1 for the credential broker's tests, with a certificate from a
throwaway CA: every request's method, path and headers are appended to RECORD (one JSON object a
line), so a test can see what reached the upstream. Prints its port on the first line of stdout.

  GET  /echo              200, the request's headers as JSON (Content-Length)
  GET  /sse?n=N&gap=MS    200 text/event-stream, chunked: N events MS apart ("data: I\\n\\n");
                          with &wait=DIR, event I > 0 only once the file DIR/go-I exists
  GET  /big?bytes=N       200, N bytes (Content-Length)
  GET  /close             200 with no length: the body ends when the connection does
  POST /upload            200, the body's length as JSON (Content-Length or chunked bodies)
  GET  /ws                101 to a WebSocket upgrade, then every byte echoed
  GET  /status?code=N     N with a short JSON body

Usage: tls_upstream.py CERT KEY RECORD"""
import json
import os
import ssl
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

cert, key, record = sys.argv[1], sys.argv[2], sys.argv[3]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def note(self):
        with open(record, "a") as f:
            f.write(json.dumps({"method": self.command, "path": self.path, "peer": self.client_address[1],
                                "headers": [[k, v] for k, v in self.headers.items()]}) + "\n")

    def send_body(self, status, ctype, data):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.note()
        url = urlsplit(self.path)
        q = {k: v[0] for k, v in parse_qs(url.query).items()}
        if url.path == "/echo":
            body = json.dumps({"headers": dict(self.headers.items())}).encode()
            return self.send_body(200, "application/json", body)
        if url.path == "/sse":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(int(q.get("n", "3"))):
                if i > 0 and "wait" in q:
                    deadline = time.time() + 30
                    while not os.path.exists(os.path.join(q["wait"], "go-%d" % i)) and time.time() < deadline:
                        time.sleep(0.01)
                data = ("data: %d %.6f\n\n" % (i, time.time())).encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
                time.sleep(int(q.get("gap", "300")) / 1000.0)
            self.wfile.write(b"0\r\n\r\n")
            return
        if url.path == "/big":
            return self.send_body(200, "application/octet-stream", b"x" * int(q.get("bytes", "1024")))
        if url.path == "/close":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"until the end\n")
            self.close_connection = True
            return
        if url.path == "/ws":
            self.send_response(101)
            self.send_header("Connection", "Upgrade")
            self.send_header("Upgrade", "websocket")
            self.end_headers()
            self.wfile.flush()
            while True:
                data = self.connection.recv(65536)
                if not data:
                    break
                self.connection.sendall(data)
            self.close_connection = True
            return
        if url.path == "/status":
            return self.send_body(int(q.get("code", "200")), "application/json", b'{"status": true}')
        return self.send_body(404, "application/json", b'{"error": "no such path"}')

    def do_POST(self):
        self.note()
        n = 0
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                n += len(self.rfile.read(size))
                self.rfile.readline()
        else:
            n = len(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        return self.send_body(200, "application/json", json.dumps({"received": n}).encode())


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
server.socket = ctx.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()

#!/usr/bin/env python3
"""A fake Anthropic Messages API for the real-agent test: TLS on 127.0.0.1 with a throwaway
certificate, reached by the agent through the broker's PADDOCK_DEBUG_RESOLVE seam. Its first
answer is a tool call that tries what the sandbox must deny (read ~/.ssh/id_rsa and .env, write
outside the project, reach an unlisted host); when the agent sends the tool's result back, that
result is recorded in RECORD and the answer ends the turn.
Usage: fake_model_api.py PORT CERT KEY RECORD COMMAND"""
import json
import ssl
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, cert, key, record, command = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]


def tool_results(body):
    out = []
    for m in body.get("messages", []):
        content = m.get("content")
        if isinstance(content, list):
            for c in content:
                if isinstance(c, dict) and c.get("type") == "tool_result":
                    out.append(c)
    return out


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, ctype, data):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.reply(404, "application/json", b'{"type":"error","error":{"type":"not_found_error","message":"no"}}')

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(n) or b"{}")
        if not self.path.startswith("/v1/messages") or self.path.startswith("/v1/messages/count_tokens"):
            return self.reply(200, "application/json", b'{"input_tokens":1}')
        results = tool_results(body)
        has_tools = any(t.get("name") == "Bash" for t in body.get("tools", []))
        if results:
            with open(record, "a") as f:
                f.write(json.dumps(results) + "\n")
            blocks = [{"type": "text", "text": "The sandbox denied those."}]
            stop = "end_turn"
        elif has_tools:
            blocks = [{"type": "tool_use", "id": "toolu_paddock_1", "name": "Bash",
                       "input": {"command": command, "description": "probe the sandbox"}}]
            stop = "tool_use"
        else:
            blocks = [{"type": "text", "text": "ok"}]
            stop = "end_turn"
        model = body.get("model", "claude-test")
        usage = {"input_tokens": 1, "output_tokens": 1}
        if not body.get("stream"):
            msg = {"id": "msg_paddock", "type": "message", "role": "assistant", "model": model, "content": blocks,
                   "stop_reason": stop, "stop_sequence": None, "usage": usage}
            return self.reply(200, "application/json", json.dumps(msg).encode())
        events = [("message_start", {"type": "message_start", "message": {
            "id": "msg_paddock", "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": usage}})]
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                events.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                       "content_block": {"type": "text", "text": ""}}))
                events.append(("content_block_delta", {"type": "content_block_delta", "index": i,
                                                       "delta": {"type": "text_delta", "text": b["text"]}}))
            else:
                events.append(("content_block_start", {"type": "content_block_start", "index": i, "content_block": {
                    "type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}}))
                events.append(("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {
                    "type": "input_json_delta", "partial_json": json.dumps(b["input"])}}))
            events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
        events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                         "usage": {"output_tokens": 1}}))
        events.append(("message_stop", {"type": "message_stop"}))
        data = "".join("event: %s\ndata: %s\n\n" % (e, json.dumps(d)) for e, d in events).encode()
        self.reply(200, "text/event-stream", data)


server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
server.socket = ctx.wrap_socket(server.socket, server_side=True)
print("ready", flush=True)
server.serve_forever()

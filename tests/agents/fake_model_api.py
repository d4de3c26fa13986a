#!/usr/bin/env python3
"""A fake model API for the real-agent test: TLS on 127.0.0.1 with a throwaway certificate,
reached by the agent through the broker's PADDOCK_DEBUG_RESOLVE seam. It speaks two dialects:
Anthropic's Messages API (POST /v1/messages, Claude Code) and OpenAI's Responses API
(POST /v1/responses, streamed, Codex). Its first answer is a tool call that tries what the
sandbox must deny (read ~/.ssh/id_rsa and .env, write outside the project, reach an unlisted
host); when the agent sends the tool's result back, that result is recorded in RECORD and the
answer ends the turn.
With FAKE_MODEL_API_HEADERS=FILE in its environment, each request's method, path and credential
headers (x-api-key, authorization) are appended to FILE, one JSON object a line.
Usage: fake_model_api.py PORT CERT KEY RECORD COMMAND"""
import json
import os
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

    # What reached the model API, for a test of the credential broker (see the docstring).
    def note_credentials(self):
        path = os.environ.get("FAKE_MODEL_API_HEADERS")
        if path:
            with open(path, "a") as f:
                f.write(json.dumps({"method": self.command, "path": self.path,
                                    "x-api-key": self.headers.get("x-api-key"),
                                    "authorization": self.headers.get("authorization")}) + "\n")

    def do_GET(self):
        self.note_credentials()
        self.reply(404, "application/json", b'{"type":"error","error":{"type":"not_found_error","message":"no"}}')

    def do_POST(self):
        self.note_credentials()
        n = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(n) or b"{}")
        if self.path.startswith("/v1/responses"):
            return self.openai_responses(body)
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


    # OpenAI's Responses API as Codex uses it: the request lists the tools (function tools with a
    # JSON schema), the answer is a stream of server-sent events, each a JSON object with its
    # "type"; a function call is one output item, and its result comes back in the next
    # request's input as a function_call_output with the same call_id.
    def openai_responses(self, body):
        outputs = [i for i in body.get("input", []) if isinstance(i, dict) and i.get("type", "").endswith("call_output")]
        call = shell_call(body.get("tools", []), command)
        # For the test's log when the agent never calls back: what it offered.
        print("responses: tools %s" % [(t.get("type"), t.get("name")) for t in body.get("tools", [])], flush=True)
        if outputs:
            with open(record, "a") as f:
                f.write(json.dumps(outputs) + "\n")
            item = {"type": "message", "role": "assistant", "id": "msg_paddock", "status": "completed",
                    "content": [{"type": "output_text", "text": "The sandbox denied those.", "annotations": []}]}
        elif call:
            item = call
        else:
            item = {"type": "message", "role": "assistant", "id": "msg_paddock", "status": "completed",
                    "content": [{"type": "output_text", "text": "ok", "annotations": []}]}
        usage = {"input_tokens": 1, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 1,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 2}
        response = {"id": "resp_paddock", "object": "response", "model": body.get("model", "gpt-test")}
        events = [{"type": "response.created", "response": dict(response, status="in_progress", output=[])},
                  {"type": "response.output_item.added", "output_index": 0, "item": item},
                  {"type": "response.output_item.done", "output_index": 0, "item": item},
                  {"type": "response.completed", "response": dict(response, status="completed", output=[item],
                                                                  usage=usage)}]
        data = "".join("event: %s\ndata: %s\n\n" % (e["type"], json.dumps(e)) for e in events).encode()
        self.reply(200, "text/event-stream", data)


# The function call that runs `cmd` with the shell tool the client offers, in the shape of that
# tool's parameters: a command string ("shell_command", "exec_command"'s "cmd") or an argv
# ("shell"). None when it offers no shell.
def shell_call(tools, cmd):
    for t in tools:
        if t.get("type") != "function":
            continue
        props = t.get("parameters", {}).get("properties", {})
        if "cmd" in props:
            args = {"cmd": cmd, "yield_time_ms": 30000}
        elif props.get("command", {}).get("type") == "array":
            args = {"command": ["bash", "-lc", cmd]}
        elif props.get("command", {}).get("type") == "string":
            args = {"command": cmd}
        else:
            continue
        return {"type": "function_call", "id": "fc_paddock", "call_id": "call_paddock_1", "name": t["name"],
                "arguments": json.dumps(args), "status": "completed"}
    return None


server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
server.socket = ctx.wrap_socket(server.socket, server_side=True)
print("ready", flush=True)
server.serve_forever()

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

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from model_wire import (anthropic_answer, anthropic_tool_results, responses_outputs,  # noqa: E402
                        responses_stream, shell_call, text_item)

port, cert, key, record, command = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]


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
        results = anthropic_tool_results(body)
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
        ctype, data = anthropic_answer(blocks, stop, body.get("model", "claude-test"), "msg_paddock",
                                       bool(body.get("stream")))
        self.reply(200, ctype, data)


    # OpenAI's Responses API as Codex uses it: the request lists the tools (function tools with a
    # JSON schema), the answer is a stream of server-sent events, each a JSON object with its
    # "type"; a function call is one output item, and its result comes back in the next
    # request's input as a function_call_output with the same call_id.
    def openai_responses(self, body):
        outputs = responses_outputs(body)
        call = shell_call(body.get("tools", []), command, "paddock_1")
        # For the test's log when the agent never calls back: what it offered.
        print("responses: tools %s" % [(t.get("type"), t.get("name")) for t in body.get("tools", [])], flush=True)
        if outputs:
            with open(record, "a") as f:
                f.write(json.dumps(outputs) + "\n")
            item = text_item("The sandbox denied those.", "msg_paddock")
        else:
            item = call or text_item("ok", "msg_paddock")
        self.reply(200, "text/event-stream", responses_stream(item, body.get("model", "gpt-test"), "resp_paddock"))


server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
server.socket = ctx.wrap_socket(server.socket, server_side=True)
print("ready", flush=True)
server.serve_forever()

#!/usr/bin/env python3
"""A scripted model server for the whole-task agent test (tests/agents/whole_task_test.sh): plain
HTTP on 127.0.0.1:PORT of the test's own empty network namespace, which the sandbox reaches
through a host port (paddock run --host-port PORT). It speaks each preset agent's own API:

  POST /v1/messages                          Anthropic Messages (Claude Code, OpenCode's anthropic provider)
  POST /v1/responses                         OpenAI Responses, streamed (Codex)
  POST /v1beta/models/M:streamGenerateContent, :generateContent, :countTokens
                                             Google's Generative Language API (Gemini CLI)

The script is a list of shell commands (STEPS, a JSON file: [{"name": ..., "command": ...}]). In
a conversation that offers a shell tool, the answer to a request that carries N tool results is
the tool call of step N (with that agent's shell tool and its parameters), and once every step
ran, a closing text. The result of each step (what the agent sent back) is appended to RECORD as
{"step": N, "name": ..., "result": ...}; every request body is appended to REQUESTS, so that the
test can check what reached the model. Requests that offer no shell tool (titles, summaries, a
next-speaker check) get a short answer of the shape they ask for.
Usage: scripted_model.py PORT STEPS RECORD REQUESTS"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from model_wire import (anthropic_answer, anthropic_tool_results, responses_outputs,  # noqa: E402
                        responses_stream, shell_call, text_item)

port, steps_file, record, requests_log = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
with open(steps_file) as f:
    STEPS = json.load(f)
SHELL_TOOLS = ("Bash", "bash", "run_shell_command", "shell", "exec_command", "shell_command", "local_shell")
lock = threading.Lock()
recorded = set()


def record_result(n, text):
    """Step n-1's result, once (an agent may resend the whole history)."""
    with lock:
        if n - 1 in recorded or n - 1 >= len(STEPS):
            return
        recorded.add(n - 1)
        with open(record, "a") as f:
            f.write(json.dumps({"step": n - 1, "name": STEPS[n - 1]["name"], "result": text}) + "\n")


def text_of(content):
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(text_of(c.get("text", c.get("content", ""))) if isinstance(c, dict) else str(c) for c in content)
    if isinstance(content, dict):
        return json.dumps(content)
    return str(content)


def fill_schema(schema):
    """A JSON value of the shape a schema asks for (for the structured side requests)."""
    t = schema.get("type", "object")
    if isinstance(t, list):
        t = t[0]
    t = str(t).lower()
    if "enum" in schema:
        return schema["enum"][0]
    if t == "object":
        props = schema.get("properties", {})
        return {k: ("user" if k == "next_speaker" else fill_schema(v)) for k, v in props.items()}
    if t == "array":
        return []
    if t in ("integer", "number"):
        return 0
    if t == "boolean":
        return False
    return "ok"


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

    def sse(self, events):
        self.reply(200, "text/event-stream", "".join(events).encode())

    def do_GET(self):
        # Model lists and the like: an empty list of the usual shapes.
        self.reply(200, "application/json", b'{"data":[],"models":[],"object":"list"}')

    # The bare run's stand-in for the broker's refusal (whole_task_test.sh points the proxy
    # variables here): every tunnel is refused with a 403, as the broker refuses an unlisted host.
    def do_CONNECT(self):
        self.reply(403, "text/plain", b"refused: not the model")

    def do_HEAD(self):
        self.reply(200, "application/json", b"")

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(n)
        with lock, open(requests_log, "ab") as f:
            f.write(self.path.encode() + b" " + raw + b"\n")
        body = json.loads(raw or b"{}")
        path = self.path.split("?")[0]
        if path.endswith("/messages/count_tokens"):
            return self.reply(200, "application/json", b'{"input_tokens":1}')
        if path.endswith("/messages"):
            return self.anthropic(body)
        if path.endswith("/responses"):
            return self.openai_responses(body)
        if ":countTokens" in path:
            return self.reply(200, "application/json", b'{"totalTokens":1}')
        if ":streamGenerateContent" in path or ":generateContent" in path:
            return self.gemini(body, stream=":streamGenerateContent" in path)
        self.reply(404, "application/json", b'{"error":{"message":"not scripted"}}')

    # ---- Anthropic Messages: tool_use blocks out, tool_result blocks back.
    def anthropic(self, body):
        tool = next((t["name"] for t in body.get("tools", []) if t.get("name") in SHELL_TOOLS), None)
        results = anthropic_tool_results(body)
        if tool and results:
            record_result(len(results), text_of(results[-1].get("content")))
        if tool and len(results) < len(STEPS):
            step = STEPS[len(results)]
            blocks = [{"type": "tool_use", "id": "toolu_step_%d" % len(results), "name": tool,
                       "input": {"command": step["command"], "description": step["name"]}}]
            stop = "tool_use"
        else:
            blocks = [{"type": "text", "text": "All ten steps are done." if tool else "Paddock task"}]
            stop = "end_turn"
        ctype, data = anthropic_answer(blocks, stop, body.get("model", "claude-test"), "msg_scripted",
                                       bool(body.get("stream")))
        self.reply(200, ctype, data)

    # ---- OpenAI Responses (streamed): a function_call item out, a function_call_output back.
    def openai_responses(self, body):
        outputs = responses_outputs(body)
        if outputs:
            record_result(len(outputs), text_of(outputs[-1].get("output")))
        n = len(outputs)
        call = shell_call(body.get("tools", []), STEPS[n]["command"], "step_%d" % n) if n < len(STEPS) else None
        item = call or text_item("All ten steps are done.", "msg_scripted")
        self.reply(200, "text/event-stream", responses_stream(item, body.get("model", "gpt-test"), "resp_scripted"))

    # ---- Google Generative Language: functionCall parts out, functionResponse parts back.
    def gemini(self, body, stream):
        decls = [d for t in body.get("tools", []) for d in t.get("functionDeclarations", [])]
        tool = next((d["name"] for d in decls if d.get("name") in SHELL_TOOLS), None)
        results = [p["functionResponse"] for c in body.get("contents", []) for p in c.get("parts", [])
                   if isinstance(p, dict) and "functionResponse" in p]
        gen = body.get("generationConfig", {})
        schema = gen.get("responseJsonSchema") or gen.get("responseSchema")
        if tool and results:
            record_result(len(results), text_of(results[-1].get("response")))
        if tool and len(results) < len(STEPS):
            step = STEPS[len(results)]
            parts = [{"functionCall": {"name": tool, "args": {"command": step["command"], "description": step["name"]}}}]
        elif schema and not tool:
            parts = [{"text": json.dumps(fill_schema(schema))}]
        else:
            parts = [{"text": "All ten steps are done." if tool else "ok"}]
        answer = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
                  "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
                  "modelVersion": "gemini-test"}
        if stream:
            return self.sse(["data: %s\r\n\r\n" % json.dumps(answer)])
        self.reply(200, "application/json", json.dumps(answer).encode())


server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
print("ready", flush=True)
server.serve_forever()

"""The model APIs' answers on the wire, shared by the agent tests' fake servers
(fake_model_api.py, scripted_model.py): Anthropic's Messages (a JSON message or its stream of
server-sent events) and OpenAI's Responses (a stream of events around one output item), and the
shell call in the shape of the tool a Responses client offers."""
import json


def anthropic_tool_results(body):
    """The tool_result blocks a Messages request sends back, in order."""
    return [c for m in body.get("messages", []) if isinstance(m.get("content"), list)
            for c in m["content"] if isinstance(c, dict) and c.get("type") == "tool_result"]


def anthropic_answer(blocks, stop, model, msg_id, stream):
    """(content type, body) of a Messages answer holding `blocks` (text and tool_use blocks)."""
    usage = {"input_tokens": 1, "output_tokens": 1}
    if not stream:
        msg = {"id": msg_id, "type": "message", "role": "assistant", "model": model, "content": blocks,
               "stop_reason": stop, "stop_sequence": None, "usage": usage}
        return "application/json", json.dumps(msg).encode()
    events = [("message_start", {"type": "message_start", "message": {
        "id": msg_id, "type": "message", "role": "assistant", "model": model, "content": [],
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
    return "text/event-stream", "".join("event: %s\ndata: %s\n\n" % (e, json.dumps(d)) for e, d in events).encode()


def text_item(text, msg_id):
    """A Responses output item that is the assistant's text."""
    return {"type": "message", "role": "assistant", "id": msg_id, "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def responses_stream(item, model, resp_id):
    """The body of a streamed Responses answer whose one output is `item`."""
    usage = {"input_tokens": 1, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 1,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 2}
    response = {"id": resp_id, "object": "response", "model": model}
    events = [{"type": "response.created", "response": dict(response, status="in_progress", output=[])},
              {"type": "response.output_item.added", "output_index": 0, "item": item},
              {"type": "response.output_item.done", "output_index": 0, "item": item},
              {"type": "response.completed", "response": dict(response, status="completed", output=[item],
                                                              usage=usage)}]
    return "".join("event: %s\ndata: %s\n\n" % (e["type"], json.dumps(e)) for e in events).encode()


def responses_outputs(body):
    """The tool results a Responses request sends back (function_call_output and the like)."""
    return [i for i in body.get("input", []) if isinstance(i, dict) and i.get("type", "").endswith("call_output")]


def shell_call(tools, cmd, tag):
    """The function call that runs `cmd` with the shell tool a Responses client offers, in the shape
    of that tool's parameters: a command string ("shell_command", exec_command's "cmd") or an argv
    ("shell"). None when it offers no shell."""
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
        return {"type": "function_call", "id": "fc_%s" % tag, "call_id": "call_%s" % tag, "name": t["name"],
                "arguments": json.dumps(args), "status": "completed"}
    return None

"""A runtime in another process that speaks exec protocol 2 (standard library only): it asks for the
recorded HTTP responses (`inputs: recorded`) and serves e2e by sending its own HTTP through the
harness. It reports what reached it, unparsed, so that the tests can compare it with the cassettes:

- process: `{status, headers, body}` of the response it was handed;
- process_stream: every chunk it pulled, in order, one item each;
- execute: it POSTs `{"model": <agent's model>, "messages": [], **additionalProperties}` to
  `<base_url>/chat/completions` and
  returns the response's `{status, body}`, or yields the chunks of a streamed answer (a streamed
  result); a request nothing answers raises ConnectionError with the harness's reason.
"""

import json
import sys

HELLO = {
    "type": "hello",
    "protocol": 2,
    "inputs": "recorded",
    "name": "recorded-fake",
    "version": "0.1.0",
    "capabilities": ["process:openai.chat", "stream:openai.chat", "e2e:openai.chat"],
}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def receive():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


def pull(call_id):
    """The chunks of the call's stream, pulled one by one."""
    while True:
        send({"type": "next", "id": call_id})
        reply = receive()
        if reply["type"] == "end":
            return
        yield reply["chunk"]


def execute(call):
    agent, client = call["args"]["agent"], call["args"]["client"]
    extra = (agent["model"].get("options") or {}).get("additionalProperties") or {}
    body = json.dumps({"model": agent["model"]["id"], "messages": [], **extra})
    url = client["base_url"].rstrip("/") + "/chat/completions"
    # a stale content-length, as a runtime that re-encodes its body might send: the harness's HTTP
    # client counts the bytes it really sends
    headers = {"content-type": ["application/json"], "content-length": ["1"]}
    request = {"method": "POST", "url": url, "headers": headers, "body": body}
    send({"type": "http", "id": call["id"], "request": request})
    response = receive()
    if "error" in response:
        raise ConnectionError(response["error"])
    if "body" in response:
        return {"status": response["status"], "body": response["body"]}, False
    for chunk in pull(call["id"]):
        send({"type": "yield", "id": call["id"], "item": chunk})
    return None, True


def main():
    send(HELLO)
    while True:
        call = receive()
        if call["type"] == "stop":
            return
        streamed = False
        try:
            if call["method"] == "process":
                value = call["args"]["response"]
            elif call["method"] == "process_stream":
                for chunk in pull(call["id"]):
                    send({"type": "yield", "id": call["id"], "item": chunk})
                value = None
            else:
                value, streamed = execute(call)
        except Exception as exc:
            error = {"type": type(exc).__name__, "mro": [type(exc).__name__], "message": str(exc)}
            send({"type": "error", "id": call["id"], "error": error})
            continue
        send({"type": "result", "id": call["id"], "value": value, **({"streamed": True} if streamed else {})})


if __name__ == "__main__":
    main()

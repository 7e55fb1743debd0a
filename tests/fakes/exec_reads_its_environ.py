"""A runtime in another process (exec protocol 2, standard library only) that calls the provider with
the key its environment holds, as an SDK does, and says what it was started with: its e2e call sends
``Authorization: Bearer $OPENAI_API_KEY`` through the harness's HTTP bridge, and writes its
environment (``/proc/self/environ``, as the kernel holds it) and ``sys.argv`` as JSON to the file
``WIRECONF_FAKE_SEEN_FILE`` names. It answers the chat completion's text."""

import json
import os
import sys

HELLO = {
    "type": "hello",
    "protocol": 2,
    "name": "reads-its-environ",
    "version": "0.1.0",
    "capabilities": ["e2e:openai.chat"],
}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def receive():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


def execute(call):
    with open("/proc/self/environ", "rb") as environ:
        seen = environ.read().decode("utf-8", "replace")
    with open(os.environ["WIRECONF_FAKE_SEEN_FILE"], "w", encoding="utf-8") as out:
        json.dump({"environ": seen.split("\0"), "argv": sys.argv}, out)
    agent, messages, client = call["args"]["agent"], call["args"]["messages"], call["args"]["client"]
    text = messages[-1]["content"][0]["value"]
    body = json.dumps({"model": agent["model"]["id"], "messages": [{"role": "user", "content": text}]})
    headers = {
        "content-type": ["application/json"],
        "authorization": [f"Bearer {os.environ.get('OPENAI_API_KEY', '')}"],
    }
    url = client["base_url"].rstrip("/") + "/chat/completions"
    send(
        {
            "type": "http",
            "id": call["id"],
            "request": {"method": "POST", "url": url, "headers": headers, "body": body},
        }
    )
    response = receive()
    if "error" in response:
        raise ConnectionError(response["error"])
    return json.loads(response["body"])["choices"][0]["message"]["content"]


def main():
    send(HELLO)
    while True:
        call = receive()
        if call["type"] == "stop":
            return
        try:
            value = execute(call)
        except Exception as exc:
            error = {"type": type(exc).__name__, "mro": [type(exc).__name__], "message": str(exc)}
            send({"type": "error", "id": call["id"], "error": error})
            continue
        send({"type": "result", "id": call["id"], "value": value})


if __name__ == "__main__":
    main()

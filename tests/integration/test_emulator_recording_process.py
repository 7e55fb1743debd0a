"""A runtime process that reads its key and base URL from its environment records through the
emulator's recording proxy while holding only the placeholder: started with ``runtime_environ`` (no
credential, the placeholder under the key variable, the base-URL variable pointing at its site), it
calls the fake provider (``tests/fake_provider.py``) through the site; the provider sees the real key,
which is in none of the runtime's environment (``/proc/self/environ``), argv, output or answer (the
fake echoes it in a header: withheld), and the cassette written holds no secret."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.fake_provider import PLANTED_KEYS
from wireconf.cassettes.exchange import Exchange
from wireconf.emulator.recording import DirectUpstream, RecordingAnswers
from wireconf.emulator.routes import PLACEHOLDER_KEY
from wireconf.emulator.server import Emulator
from wireconf.providers.runtime_environ import runtime_environ

RUNTIME = """
import json, sys
import openai

client = openai.OpenAI(max_retries=0)  # OPENAI_API_KEY and OPENAI_BASE_URL from the environment
raw = client.chat.completions.with_raw_response.create(
    model="m", messages=[{"role": "user", "content": "hello"}]
)
answer = raw.parse()
with open("/proc/self/environ", "rb") as environ:
    seen = environ.read().decode("utf-8", "replace")
print(json.dumps({
    "text": answer.choices[0].message.content,
    "headers": raw.headers.multi_items(),
    "environ": seen,
    "argv": sys.argv,
}))
"""


def test_a_runtime_process_records_holding_only_the_placeholder(fake_provider, tmp_path):
    user = {**os.environ, **fake_provider.environ()}  # the pytest process: the user's keys
    path = tmp_path / "process.yaml"
    exchange = Exchange("process", path, None, "once", "openai.chat", "openai", user)
    upstream = DirectUpstream(user)
    with (
        Emulator() as emulator,
        emulator.serving("openai.chat", RecordingAnswers(exchange, upstream)) as site,
    ):
        env = runtime_environ(user, {"openai": site.endpoint().api_base_url})
        done = subprocess.run(
            [sys.executable, "-c", RUNTIME], env=env, capture_output=True, text=True, timeout=120, check=False
        )
        assert site.refused == []
    upstream.close()
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["text"] == "You said: hello"
    assert f"OPENAI_API_KEY={PLACEHOLDER_KEY}" in seen["environ"].split("\0")
    # nor in what it was answered: the fake echoes the key in a header (``x-echo-key``), withheld
    assert ["x-echo-key", "<$OPENAI_API_KEY>"] in seen["headers"]
    for key in (PLANTED_KEYS.openai, PLANTED_KEYS.anthropic, PLANTED_KEYS.gemini):
        assert key not in done.stdout + done.stderr + " ".join(seen["argv"])
    assert "PLANTED" not in seen["environ"]  # nor the organisation and project ids
    # the provider got the real key from the proxy, never the placeholder
    sent = fake_provider.requests[-1]["headers"]
    assert sent.get("Authorization") == f"Bearer {PLANTED_KEYS.openai}"
    assert PLACEHOLDER_KEY not in json.dumps(sent)
    exchange.finish("a-case", "a-runtime")  # the echoed header is not on the cassette's allowlist
    assert exchange.written == path and "PLANTED" not in path.read_text()

"""Record mode with an ``exec:`` runtime: the runtime holds only the placeholder, the provider gets the
real key. A runtime that calls with whatever its environment's ``OPENAI_API_KEY`` holds
(tests/fakes/exec_reads_its_environ.py) records an e2e case with ``--record-mode=all`` against the fake
provider (``tests/fake_provider.py``) through the exec bridge: the provider received the planted key,
which is in none of the runtime's environment (``/proc/self/environ``), argv, protocol messages
(``WIRECONF_EXEC_TRANSCRIPT``) or the cassette written."""

from __future__ import annotations

import json
import shlex
import sys

from tests.conftest import REPO, small_corpus
from tests.fake_provider import PLANTED_KEYS
from wireconf.providers.provider import PLACEHOLDER_KEY
from wireconf.providers.registry import PROVIDERS

RUNTIME = f"{shlex.quote(sys.executable)} {REPO / 'tests' / 'fakes' / 'exec_reads_its_environ.py'}"

RULES = """\
rules:
  - id: 7.8/through-the-sdk
    level: MUST
    basis: text
    governs: [{subject: request, path: '$**'}]
    source: {seed: s7.txt, section: '7.8'}
    statement: The runtime calls the provider through the official SDK.
"""

CASES = """\
cases:
  - id: e2e.openai.chat.exec-recording
    kind: e2e
    rules: [7.8/through-the-sdk]
    api: openai.chat
    cassette: openai/exec-recording
    agent: {model: {id: gpt-fake}}
    messages: [{role: user, content: [{kind: text, value: hello exec}]}]
    expect_request: {model: gpt-fake, messages: [{role: user, content: hello exec}]}
    expect: "You said: hello exec"
"""


def test_an_exec_runtime_records_holding_only_the_placeholder(
    fake_provider, monkeypatch, pytester, run_corpus
):
    seen_file, transcript = pytester.path / "seen.json", pytester.path / "transcript.jsonl"
    monkeypatch.setenv("WIRECONF_FAKE_SEEN_FILE", str(seen_file))
    monkeypatch.setenv("WIRECONF_EXEC_TRANSCRIPT", str(transcript))
    corpus = small_corpus(pytester.path / "corpus", RULES, "e2e.yaml", CASES)
    cassettes = pytester.path / "cassettes"
    run = run_corpus(f"--impl=exec:{RUNTIME}", "--record-mode=all", f"--cassettes={cassettes}", target=corpus)
    assert run.outcomes == {"e2e.openai.chat.exec-recording": "passed"}, run.longreprs
    planted = [PLANTED_KEYS.openai, PLANTED_KEYS.anthropic, PLANTED_KEYS.gemini]

    # the provider got the real key, added where the request left, never the placeholder
    (request,) = fake_provider.requests
    assert request["headers"].get("Authorization") == f"Bearer {PLANTED_KEYS.openai}"
    assert PLACEHOLDER_KEY not in json.dumps(request["headers"])

    # the runtime was started with the placeholder, no credential, and no base URL of the user's
    seen = json.loads(seen_file.read_text())
    assert f"OPENAI_API_KEY={PLACEHOLDER_KEY}" in seen["environ"]
    names = {entry.partition("=")[0] for entry in seen["environ"]}
    assert not names & {p.base_url_variable for p in PROVIDERS.values()}
    assert "PLANTED" not in "\0".join(seen["environ"])  # no key, organisation or project id
    assert not any(key in arg for key in planted for arg in seen["argv"])

    # no protocol message carries it: the runtime's request held the placeholder
    messages = [json.loads(line) for line in transcript.read_text().splitlines()]
    (http,) = [m["message"] for m in messages if m["message"]["type"] == "http"]
    assert http["request"]["headers"]["authorization"] == [f"Bearer {PLACEHOLDER_KEY}"]
    assert not any(key in transcript.read_text() for key in planted), transcript.read_text()

    # and the cassette written passed the scrubbing and refusals: it holds no planted value
    written = cassettes / "openai" / "exec-recording.yaml"
    assert written.exists() and "PLANTED" not in written.read_text()

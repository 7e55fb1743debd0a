"""Recording with real keys, tested against the fake provider server through the official SDKs.

Every api is recorded (`--record-mode=once`) as a user with keys would, then replayed with the server
stopped and the keys unset: the outcomes are the same, and the written cassettes hold none of the
planted secrets (response headers, a signed URL, a `key=` query, a body token, the key variables).
A key-shaped string in an answer makes the recording fail without writing; a recording killed
midway leaves the old cassette or none.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, small_corpus
from tests.fake_provider import LEAKED_KEY, FakeProvider
from tests.fake_provider import PLANTED_KEYS as KEYS
from wireconf.cassettes.store import read_cassette
from wireconf.corpus.rules import load_catalogue
from wireconf.reports.html import render_html
from wireconf.reports.jsonl import read_records
from wireconf.reports.markdown import render_markdown
from wireconf.reports.matrix import build_matrix

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
x-e2e: &e2e {kind: e2e, rules: [7.8/through-the-sdk]}
cases:
  - <<: *e2e
    id: e2e.openai.chat.fake-chat
    api: openai.chat
    cassette: openai/fake-chat
    agent: {model: {id: gpt-fake}}
    messages: [{role: user, content: [{kind: text, value: hello chat}]}]
    expect_request: {model: gpt-fake, messages: [{role: user, content: hello chat}]}
    expect: "You said: hello chat"
  - <<: *e2e
    id: e2e.openai.chat.fake-chat-stream
    api: openai.chat
    cassette: openai/fake-chat-stream
    agent:
      model:
        id: gpt-fake
        options: {additionalProperties: {stream: true, stream_options: {include_usage: true}}}
    messages: [{role: user, content: [{kind: text, value: hello stream}]}]
    expect_request:
      model: gpt-fake
      messages: [{role: user, content: hello stream}]
      stream: true
      stream_options: {include_usage: true}
    incremental: true
    expect: ["You ", "said: ", "hello ", "stream"]
  - <<: *e2e
    id: e2e.openai.chat.fake-chat-deviates
    description: Expects a body the runtime does not send, so that both runs must fail the same way.
    api: openai.chat
    cassette: openai/fake-chat-deviates
    agent: {model: {id: gpt-fake, options: {maxOutputTokens: 7}}}
    messages: [{role: user, content: [{kind: text, value: hello diff}]}]
    expect_request: {model: gpt-fake, messages: [{role: user, content: hello diff}], max_tokens: 7}
    expect: "You said: hello diff"
  - <<: *e2e
    id: e2e.openai.embeddings.fake-embeddings
    api: openai.embeddings
    cassette: openai/fake-embeddings
    agent: {model: {id: text-embedding-fake}}
    messages: [{role: user, content: [{kind: text, value: embed me}]}]
    expect_request: {model: text-embedding-fake, input: embed me, encoding_format: base64}
    expect: [[0.25, -0.5, 0.125]]
  - <<: *e2e
    id: e2e.openai.images.fake-image
    api: openai.images
    cassette: openai/fake-image
    agent: {model: {id: image-fake}}
    messages: [{role: user, content: [{kind: text, value: a lion}]}]
    expect_request: {model: image-fake, prompt: a lion}
    expect: {revised_prompt: a lion, url_host: fake.blob.example}
  - <<: *e2e
    id: e2e.openai.responses.fake-response
    api: openai.responses
    cassette: openai/fake-response
    agent: {model: {id: gpt-fake}}
    messages: [{role: user, content: [{kind: text, value: hello responses}]}]
    expect_request: {model: gpt-fake, input: hello responses}
    expect: "You said: hello responses"
  - <<: *e2e
    id: e2e.openai.responses.fake-response-stream
    api: openai.responses
    cassette: openai/fake-response-stream
    agent: {model: {id: gpt-fake, options: {additionalProperties: {stream: true}}}}
    messages: [{role: user, content: [{kind: text, value: hello events}]}]
    expect_request: {model: gpt-fake, input: hello events, stream: true}
    incremental: true
    expect: ["You ", "said: ", "hello ", "events"]
  - <<: *e2e
    id: e2e.anthropic.messages.fake-message
    api: anthropic.messages
    cassette: anthropic/fake-message
    agent: {model: {id: claude-fake}}
    messages: [{role: user, content: [{kind: text, value: hello claude}]}]
    expect_request:
      model: claude-fake
      max_tokens: 64
      messages: [{role: user, content: hello claude}]
      access_token: PLANTEDbodyToken0123456789abcdef
    expect: "You said: hello claude"
  - <<: *e2e
    id: e2e.anthropic.messages.fake-message-stream
    api: anthropic.messages
    cassette: anthropic/fake-message-stream
    agent: {model: {id: claude-fake, options: {additionalProperties: {stream: true}}}}
    messages: [{role: user, content: [{kind: text, value: hello padding}]}]
    expect_request:
      model: claude-fake
      max_tokens: 64
      messages: [{role: user, content: hello padding}]
      stream: true
      access_token: PLANTEDbodyToken0123456789abcdef
    incremental: true
    expect: ["You ", "said: ", "hello ", "padding"]
  - <<: *e2e
    id: e2e.gemini.generate_content.fake-generate
    api: gemini.generate_content
    cassette: google/fake-generate
    agent: {model: {id: gemini-fake}}
    messages: [{role: user, content: [{kind: text, value: hello gemini}]}]
    expect_request: {contents: [{parts: [{text: hello gemini}], role: user}]}
    expect: "You said: hello gemini"
  - <<: *e2e
    id: e2e.gemini.generate_content.fake-generate-stream
    api: gemini.generate_content
    cassette: google/fake-generate-stream
    agent: {model: {id: gemini-fake, options: {additionalProperties: {stream: true}}}}
    messages: [{role: user, content: [{kind: text, value: hello sse}]}]
    expect_request: {contents: [{parts: [{text: hello sse}], role: user}]}
    expect: ["You ", "said: ", "hello ", "sse"]
"""

DEVIATES = "e2e.openai.chat.fake-chat-deviates"
IMPL = "--impl=tests.fakes.sdk_echo:adapter"


def write_corpus(root: Path, cases: str = CASES) -> Path:
    return small_corpus(root / "corpus", RULES, "e2e.yaml", cases)


def stop_and_forget_keys(provider: FakeProvider, monkeypatch) -> None:
    for name in provider.environ():
        monkeypatch.delenv(name, raising=False)
    provider.stop()


def test_recording_then_replay_with_the_server_stopped_gives_the_same_results(
    fake_provider, monkeypatch, pytester, run_corpus
):
    corpus = write_corpus(pytester.path)
    cassettes = pytester.path / "cassettes"
    recorded = run_corpus(IMPL, "--record-mode=once", f"--cassettes={cassettes}", target=corpus)

    assert recorded.with_outcome("failed") == {DEVIATES}, recorded.longreprs
    assert len(recorded.with_outcome("passed")) == 10, recorded.outcomes
    assert len(fake_provider.requests) == 11  # every case reached the server, with the right key
    written = sorted(p.relative_to(cassettes).as_posix() for p in cassettes.rglob("*.yaml"))
    assert len(written) == 11 and "google/fake-generate-stream.yaml" in written

    stop_and_forget_keys(fake_provider, monkeypatch)
    replayed = run_corpus(IMPL, f"--cassettes={cassettes}", target=corpus)

    assert replayed.outcomes == recorded.outcomes
    assert replayed.longreprs[DEVIATES] == recorded.longreprs[DEVIATES]
    assert "$.max_tokens: missing key (expected 7)" in replayed.longreprs[DEVIATES]


def test_written_cassettes_hold_none_of_the_planted_secrets(fake_provider, pytester, run_corpus):
    corpus = write_corpus(pytester.path)
    cassettes = pytester.path / "cassettes"
    run_corpus(IMPL, "--record-mode=once", f"--cassettes={cassettes}", target=corpus)
    texts = {p.name: p.read_text() for p in cassettes.rglob("*.yaml")}
    assert len(texts) == 11
    for name, text in texts.items():
        # every planted value has PLANTED in it: the keys, the organisation and project ids, the
        # cookie, the image URL's signature, the body token
        assert "PLANTED" not in text, name
        for value in (KEYS.openai, KEYS.anthropic, KEYS.gemini):
            assert value not in text, name
        assert "set-cookie" not in text and "x-echo-key" not in text and "authorization" not in text
    embeddings = texts["fake-embeddings.yaml"]
    assert "/v1/embeddings\n" in embeddings and "key=" not in embeddings
    assert "access_token: <scrubbed>" in texts["fake-message.yaml"]
    assert "org-<scrubbed>" in texts["fake-image.yaml"] and "sig=" not in texts["fake-image.yaml"]
    meta = read_cassette(cassettes / "google" / "fake-generate-stream.yaml").meta
    assert meta is not None and meta.provenance == "recorded" and meta.stream
    assert meta.case == "e2e.gemini.generate_content.fake-generate-stream" and meta.impl == "sdk-echo 0.0.1"
    assert set(meta.sdk) == {"google-genai", "httpx2"} and meta.endpoint.startswith("POST http://127.0.0.1:")


PLANTED_IN_STREAMS = """\
x-e2e: &e2e {kind: e2e, rules: [7.8/through-the-sdk], api: openai.chat}
cases:
  - <<: *e2e
    id: e2e.openai.chat.planted-escaped
    cassette: openai/planted-escaped
    agent: {model: {id: gpt-fake, options: {additionalProperties: {stream: true}}}}
    messages: [{role: user, content: [{kind: text, value: 'plant:escaped'}]}]
    expect_request: {model: gpt-fake, messages: [{role: user, content: 'plant:escaped'}], stream: true}
    expect: []
  - <<: *e2e
    id: e2e.openai.chat.planted-n2
    cassette: openai/planted-n2
    agent: {model: {id: gpt-fake, options: {additionalProperties: {stream: true}}}}
    messages: [{role: user, content: [{kind: text, value: 'plant:n2'}]}]
    expect_request: {model: gpt-fake, messages: [{role: user, content: 'plant:n2'}], stream: true}
    expect: []
"""


def test_the_planted_key_in_stream_shapes_the_join_used_to_miss_writes_nothing(
    fake_provider, pytester, run_corpus
):
    """A key ``\\u``-escaped inside one event, and one spelled by choice 0 of an ``n=2`` stream between
    choice 1's deltas: both recordings are refused before anything is written."""
    corpus = write_corpus(pytester.path, PLANTED_IN_STREAMS)
    cassettes = pytester.path / "cassettes"
    run = run_corpus(IMPL, "--record-mode=once", f"--cassettes={cassettes}", target=corpus)
    assert len(fake_provider.requests) == 2
    for case in ("e2e.openai.chat.planted-escaped", "e2e.openai.chat.planted-n2"):
        assert "RECORDING REFUSED" in run.longreprs[case], run.longreprs[case]
        assert "$OPENAI_API_KEY" in run.longreprs[case] and KEYS.openai not in run.longreprs[case]
    assert [p for p in cassettes.rglob("*") if p.is_file()] == []


def test_padded_anthropic_events_and_crlf_gemini_events_stay_readable_and_exact(
    fake_provider, pytester, run_corpus
):
    corpus = write_corpus(pytester.path)
    cassettes = pytester.path / "cassettes"
    run_corpus(IMPL, "--record-mode=once", f"--cassettes={cassettes}", "-k", "stream", target=corpus)
    anthropic = (cassettes / "anthropic" / "fake-message-stream.yaml").read_text()
    assert not any(line != line.rstrip() for line in anthropic.splitlines())  # no invisible trailing spaces
    assert (
        "      - - 'event: content_block_start'\n        - 'data: {" in anthropic
    )  # a padded event: its lines
    assert "}   '\n" in anthropic  # the padding, visible inside quotes
    gemini = (cassettes / "google" / "fake-generate-stream.yaml").read_text()
    assert '      eol: "\\r\\n"' in gemini and "\\r" not in gemini.replace('eol: "\\r\\n"', "")


def test_a_secret_in_an_answer_fails_the_recording_and_writes_nothing(fake_provider, pytester, run_corpus):
    fake_provider.leak_in_answer = True
    corpus = write_corpus(pytester.path)
    cassettes = pytester.path / "cassettes"
    run = run_corpus(IMPL, "--record-mode=once", f"--cassettes={cassettes}", "-k", "fake-chat", target=corpus)
    # a refused recording is no verdict on the runtime: an error, never a failure charged to a rule
    assert run.with_outcome("error") == {
        "e2e.openai.chat.fake-chat",
        "e2e.openai.chat.fake-chat-stream",
        DEVIATES,
    }
    text = run.longreprs["e2e.openai.chat.fake-chat"]
    assert "RECORDING REFUSED" in text and "nothing was written" in text
    assert f"OpenAI API key (sk-…) 'sk-p…' ({len(LEAKED_KEY)} chars)" in text
    assert LEAKED_KEY not in text  # the failure never prints the secret
    assert not list(cassettes.rglob("*")) or not list(cassettes.rglob("*.yaml"))


def test_a_missing_key_skips_its_provider_with_the_reason(fake_provider, monkeypatch, pytester, run_corpus):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    corpus = write_corpus(pytester.path)
    cassettes = pytester.path / "cassettes"
    run = run_corpus(IMPL, "--record-mode=once", f"--cassettes={cassettes}", "-k", "anthropic", target=corpus)
    assert run.with_outcome("skipped") == {
        "e2e.anthropic.messages.fake-message",
        "e2e.anthropic.messages.fake-message-stream",
    }
    assert "ANTHROPIC_API_KEY is not set" in run.longreprs["e2e.anthropic.messages.fake-message"]
    assert fake_provider.requests == []


# --- killed midway -------------------------------------------------------------------------------------


def _record_in_a_subprocess(
    corpus: Path, cassettes: Path, env: dict[str, str], mode: str
) -> subprocess.Popen:
    args = [sys.executable, "-m", "pytest", str(corpus), "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    args += [IMPL, f"--record-mode={mode}", f"--cassettes={cassettes}", "-k", "fake-chat-stream"]
    full_env = {**os.environ, **env, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        args, cwd=corpus.parent, env=full_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def _kill_while_streaming(provider: FakeProvider, proc: subprocess.Popen) -> None:
    try:
        assert provider.stream_started.wait(120), "the recording never reached the stream"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_a_recording_killed_midway_leaves_no_cassette(fake_provider, tmp_path):
    fake_provider.hang_streams = True
    corpus = write_corpus(tmp_path)
    cassettes = tmp_path / "cassettes"
    proc = _record_in_a_subprocess(corpus, cassettes, fake_provider.environ(), "once")
    _kill_while_streaming(fake_provider, proc)
    assert proc.returncode == -signal.SIGKILL
    assert [p for p in cassettes.rglob("*") if p.is_file()] == []


def test_a_re_recording_killed_midway_leaves_the_old_cassette(fake_provider, tmp_path, run_corpus):
    corpus = write_corpus(tmp_path)
    cassettes = tmp_path / "cassettes"
    first = run_corpus(
        IMPL, "--record-mode=once", f"--cassettes={cassettes}", "-k", "fake-chat-stream", target=corpus
    )
    assert first.outcomes == {"e2e.openai.chat.fake-chat-stream": "passed"}
    path = cassettes / "openai" / "fake-chat-stream.yaml"
    before = path.read_bytes()
    fake_provider.hang_streams = True
    proc = _record_in_a_subprocess(corpus, cassettes, fake_provider.environ(), "all")
    _kill_while_streaming(fake_provider, proc)
    assert path.read_bytes() == before
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left beside it


# --- what record mode shows -------------------------------------------------------------------------

LEAKY_CASES = """\
x-e2e: &e2e {kind: e2e, rules: [7.8/through-the-sdk], api: openai.chat, agent: {model: {id: gpt-fake}}}
cases:
  - <<: *e2e
    id: e2e.openai.chat.leaky-body
    cassette: openai/leaky-body
    messages: [{role: user, content: [{kind: text, value: hello}]}]
    expect_request: {model: gpt-fake, messages: [{role: user, content: hello}]}
    expect: "You said: hello"
  - <<: *e2e
    id: e2e.openai.chat.leaky-error
    cassette: openai/leaky-error
    messages: [{role: user, content: [{kind: text, value: please raise}]}]
    expect_request: {model: gpt-fake, messages: [{role: user, content: please raise}], api_key: <scrubbed>}
    expect: "You said: please raise"
"""


def _record_leaky(pytester, report: Path, *extra: str) -> Any:
    """Record the leaky runtime's cases against the fake provider, writing the JSONL ``report``."""
    pytester.syspathinsert(REPO)
    corpus = write_corpus(pytester.path, LEAKY_CASES)
    return pytester.runpytest(
        str(corpus),
        "-p",
        "no:cacheprovider",
        "--impl=tests.fakes.leaky:adapter",
        "--record-mode=once",
        f"--cassettes={pytester.path / 'cassettes'}",
        f"--report={report}",
        *extra,
    )


@pytest.mark.parametrize("padding", ["", " "], ids=["as-is", "trailing-space"])
def test_record_mode_shows_no_key_in_the_terminal_the_jsonl_or_the_junit_file(
    fake_provider, pytester, monkeypatch, padding
):
    """A key variable set with whitespace around it (as a shell or a file gives it) is redacted as set
    and as the SDK sends it, stripped, wherever a line is stripped of its end."""
    monkeypatch.setenv("OPENAI_API_KEY", KEYS.openai + padding)
    report, junit = pytester.path / "run.jsonl", pytester.path / "junit.xml"
    result = _record_leaky(pytester, report, f"--junitxml={junit}", "-o", "junit_logging=all")
    shown = {"terminal": result.stdout.str(), "jsonl": report.read_text(), "junit": junit.read_text()}
    shown["cassettes"] = "".join(p.read_text() for p in (pytester.path / "cassettes").rglob("*.yaml"))
    for where, text in shown.items():
        assert KEYS.openai not in text, where
        assert KEYS.openai[:12] not in text, where  # not even cut short by a truncated value
    assert "leaky runtime: key is" in shown["junit"]  # the logs are there, without the key
    result.assert_outcomes(passed=2, failed=2)  # the two cases, and the catalogue checks
    if padding:  # the HTTP library refuses a header value that ends in a space: the calls failed
        return
    assert "$.api_key: unexpected key" in shown["terminal"]
    assert "could not finish with key" in shown["terminal"]
    assert "leaky runtime: key is" in shown["junit"]  # the logs are there, without the key
    written = (pytester.path / "cassettes" / "openai" / "leaky-body.yaml").read_text()
    assert KEYS.openai not in written and "api_key: <scrubbed>" in written


def test_the_verdict_data_of_a_recording_holds_no_key_in_any_report(fake_provider, pytester):
    """The differences as data (each with the rules it breaks), the root causes and the HTML page's
    by-rule and by-cause views, rendered from the run's JSONL, show the runtime's key field but not
    the key."""
    report = pytester.path / "run.jsonl"
    result = _record_leaky(pytester, report)
    records = {r.id: r for r in read_records([report])}
    differences = records["e2e.openai.chat.leaky-body"].differences or []
    # the key sent in the body: an unexpected key, which the SDK's request type rejects too
    assert sorted((d["path"], d["change"]) for d in differences) == [
        ("$.api_key", "provider-rejects"),
        ("$.api_key", "unexpected-key"),
    ]
    assert differences[0]["rules"] == ["7.8/through-the-sdk"]
    assert "<$OPENAI_API_KEY>" in differences[0]["text"]
    matrix = build_matrix(list(records.values()))
    shown = {
        "terminal": result.stdout.str(),
        "html": render_html(matrix, catalogue=load_catalogue(pytester.path / "corpus" / "rules.yaml")),
        "markdown": render_markdown(matrix),
    }
    assert "root causes" in shown["terminal"]
    assert 'id="by-rule"' in shown["html"] and 'id="by-cause"' in shown["html"]
    for where, text in shown.items():
        assert "$.api_key" in text, where
        assert KEYS.openai[:12] not in text, where


def test_a_runtimes_own_prints_and_logs_show_no_key_uncaptured_either(fake_provider, pytester):
    """With capture off (-s), live logs on and a log file, what the runtime printed and logged in its
    runner process reaches the terminal and the file without the key."""
    pytester.syspathinsert(REPO)
    corpus = write_corpus(pytester.path, LEAKY_CASES)
    log_file = pytester.path / "run.log"
    result = pytester.runpytest(
        str(corpus),
        "-p",
        "no:cacheprovider",
        "-s",
        "--log-cli-level=WARNING",
        f"--log-file={log_file}",
        "--impl=tests.fakes.leaky:adapter",
        "--record-mode=once",
        f"--cassettes={pytester.path / 'cassettes'}",
    )
    shown = {"terminal": result.stdout.str() + result.stderr.str(), "log file": log_file.read_text()}
    assert "leaky runtime: calling with <$OPENAI_API_KEY>" in shown["terminal"]
    for where, text in shown.items():
        assert "leaky runtime: key is <$OPENAI_API_KEY>" in text, where
        assert KEYS.openai[:12] not in text, where

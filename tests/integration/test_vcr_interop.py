"""vcrpy both ways: cassettes recorded by vcrpy / pytest-recording (gzip, base64, JSON, Ruby VCR) are
imported and replay in e2e cases; wireconf's cassettes load, replay and re-save in vcrpy itself."""

from __future__ import annotations

import base64
import gzip
import json
import subprocess
import textwrap
from pathlib import Path

import httpx2
import openai
import pytest
import vcr

from tests.conftest import REPO
from wireconf.cassettes import format as cassette_format
from wireconf.cassettes.importer import CassetteImportError, import_files
from wireconf.cassettes.scrub import before_record_request, before_record_response
from wireconf.cassettes.store import read_cassette
from wireconf.cassettes.writer import SecretInCassette, WireconfPersister
from wireconf.cli import main as wireconf

ANSWER = {
    "id": "chatcmpl-vcr1",
    "object": "chat.completion",
    "created": 1700000000,
    "model": "gpt-4o-mini",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "Recorded by vcrpy."},
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7},
}
EVENTS = [
    {"id": "c2", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o-mini",
     "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
    for piece in ("Streamed", " by", " vcrpy.")
]  # fmt: skip
SSE = "".join(f"data: {json.dumps(e)}\n\n" for e in EVENTS) + "data: [DONE]\n\n"


def gzip_server(request: httpx2.Request, compress: bool = True) -> httpx2.Response:
    """Answers like OpenAI behind a CDN: gzip bodies, organisation and cookie headers."""
    stream = json.loads(request.read()).get("stream") is True
    body = SSE.encode() if stream else json.dumps(ANSWER).encode()
    headers = {
        "content-type": "text/event-stream" if stream else "application/json",
        "openai-organization": "org-abcdefghijklmnopqrstuvwx",
        "set-cookie": "__cf_bm=abc; path=/",
    }
    if compress:
        headers["content-encoding"] = "gzip"
    return httpx2.Response(200, headers=headers, content=gzip.compress(body) if compress else body)


def record_with_vcrpy(path: Path, serializer: str = "yaml", stream: bool = False) -> None:
    """What a pytest-recording user has: a cassette vcrpy wrote while their tests called OpenAI (vcrpy's
    json serializer cannot hold binary bodies, so that server does not compress)."""
    compress = serializer != "json"
    transport = httpx2.MockTransport(lambda request: gzip_server(request, compress))
    client = openai.OpenAI(
        api_key="sk-test-not-a-key", http_client=httpx2.Client(transport=transport), max_retries=0
    )
    my_vcr = vcr.VCR(serializer=serializer, record_mode="once")
    with my_vcr.use_cassette(str(path)):
        result = client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": "hi"}],
            **({"stream": True} if stream else {}),
        )
        if stream:
            list(result)


RULES = """\
rules:
  - id: 7.1.7/model-from-agent
    level: MUST
    basis: pseudocode
    source: {seed: s7.txt, section: 7.1.7}
    statement: model is agent.model.id.
"""


def replay_case(pytester: pytest.Pytester, cassettes: Path, name: str, stream: bool, run_corpus) -> str:
    root = pytester.path / "corpus"
    root.mkdir(exist_ok=True)
    (root / "rules.yaml").write_text(RULES)
    options = "options: {additionalProperties: {stream: true}}" if stream else ""
    expect_request = "{model: gpt-4o-mini, messages: [{role: user, content: hi}]" + (
        ", stream: true}" if stream else "}"
    )
    expect = '["Streamed", " by", " vcrpy."]' if stream else "Recorded by vcrpy."
    (root / "e2e.yaml").write_text(
        textwrap.dedent(
            f"""\
            cases:
              - id: e2e.openai.chat.from-vcrpy
                kind: e2e
                api: openai.chat
                rules: [7.1.7/model-from-agent]
                cassette: openai/{name}
                agent: {{model: {{id: gpt-4o-mini, {options}}}}}
                messages: [{{role: user, content: [{{kind: text, value: hi}}]}}]
                expect_request: {expect_request}
                expect: {expect}
            """
        )
    )
    run = run_corpus(f"--cassettes={cassettes}", target=root)
    assert run.outcomes == {"e2e.openai.chat.from-vcrpy": "passed"}, run.longreprs
    return (cassettes / "openai" / f"{name}.yaml").read_text()


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_a_vcrpy_yaml_cassette_with_gzip_bodies_imports_and_replays(tmp_path, pytester, run_corpus, stream):
    source = tmp_path / "theirs" / "test_chat.yaml"
    record_with_vcrpy(source, stream=stream)
    assert "!!binary" in source.read_text() and "Bearer sk-test-not-a-key" in source.read_text()
    cassettes = tmp_path / "cassettes"
    code = wireconf(["import", str(source), "--out", str(cassettes), "--source-repo", "example/runtime"])
    assert code == 0
    text = replay_case(pytester, cassettes, "test_chat", stream, run_corpus)
    assert "!!binary" not in text and "content-encoding" not in text and "gzip" not in text
    assert (
        "sk-test-not-a-key" not in text
        and "org-abcdefghijklmnopqrstuvwx" not in text
        and "cookie" not in text
    )
    assert ("sse:\n      - 'data: {" in text) if stream else ("json:\n        id: chatcmpl-vcr1" in text)
    meta = read_cassette(cassettes / "openai" / "test_chat.yaml").meta
    assert meta is not None and meta.provenance == "imported" and meta.stream is stream
    assert meta.source is not None and meta.source.repo == "example/runtime" and meta.source.format == "vcrpy"


def test_a_pytest_recording_json_cassette_imports_and_replays(tmp_path, pytester, run_corpus):
    source = tmp_path / "test_chat.json"
    record_with_vcrpy(source, serializer="json")
    assert json.loads(source.read_text())["interactions"][0]["response"]["body"]["string"].startswith('{"id"')
    cassettes = tmp_path / "cassettes"
    import_files([source], cassettes, source_repo="example/runtime")
    text = replay_case(pytester, cassettes, "test_chat", False, run_corpus)
    assert "sk-test-not-a-key" not in text and "json:\n        id: chatcmpl-vcr1" in text


def _pair(method: str, uri: str, request_body: object, response_headers: dict, response_body: object) -> dict:
    return {
        "request": {"method": method, "uri": uri, "body": request_body, "headers": {}},
        "response": {
            "status": {"code": 200, "message": "OK"},
            "headers": response_headers,
            "body": response_body,
        },
    }


def test_json_and_ruby_vcr_cassettes_with_base64_bodies_import(tmp_path):
    answer = json.dumps(ANSWER)
    chat = "https://api.openai.com/v1/chat/completions"
    vcrpy_json = {
        "interactions": [
            _pair("POST", chat, "{}", {"Content-Type": ["application/json"]}, {"string": answer})
        ],
        "version": 1,
    }
    gzipped = base64.b64encode(gzip.compress(b'{"id": "msg_1"}')).decode()
    ruby_pair = _pair(
        "post",
        "https://api.anthropic.com/v1/messages",
        {"encoding": "UTF-8", "string": '{"model":"claude","stream":false}'},
        {"Content-Type": ["application/json"], "Content-Encoding": ["gzip"]},
        {"encoding": "ASCII-8BIT", "base64_string": gzipped},
    )
    ruby = {
        "http_interactions": [{**ruby_pair, "recorded_at": "Tue, 01 Jul 2025 00:00:00 GMT"}],
        "recorded_with": "VCR 6.2.0",
    }
    (tmp_path / "pytest_recording.json").write_text(json.dumps(vcrpy_json))
    (tmp_path / "ruby.yml").write_text(json.dumps(ruby))
    done = import_files(
        [tmp_path / "pytest_recording.json", tmp_path / "ruby.yml"], tmp_path / "out", source_repo="example/x"
    )
    assert [d.written.relative_to(tmp_path / "out").as_posix() for d in done] == [
        "openai/pytest_recording.yaml",
        "anthropic/ruby.yaml",
    ]
    anthropic = read_cassette(tmp_path / "out" / "anthropic" / "ruby.yaml")
    assert anthropic.interactions[0].response.body == b'{"id":"msg_1"}'
    assert anthropic.meta is not None and anthropic.meta.source.format == "ruby-vcr"
    assert "json:\n        id: msg_1" in (tmp_path / "out" / "anthropic" / "ruby.yaml").read_text()


def test_the_source_defaults_to_the_git_checkout_the_cassette_sits_in(tmp_path):
    repo = tmp_path / "their-runtime"
    source = repo / "tests" / "cassettes" / "test_chat.yaml"
    record_with_vcrpy(source)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "remote", "add", "origin", "https://github.com/example/their-runtime"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "cassettes"], check=True)
    head = subprocess.run(
        [*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    (done,) = import_files([source], tmp_path / "out")
    meta = read_cassette(done.written).meta
    assert meta is not None and meta.source is not None
    assert meta.source.repo == "https://github.com/example/their-runtime"
    assert meta.source.path == "tests/cassettes/test_chat.yaml" and meta.source.commit == head


def test_import_refuses_what_it_cannot_name_or_classify_and_writes_nothing(tmp_path):
    loose = tmp_path / "loose" / "test_chat.yaml"
    record_with_vcrpy(loose)
    with pytest.raises(CassetteImportError, match="cannot tell where this cassette was published"):
        import_files([loose], tmp_path / "out")
    other = tmp_path / "other.yaml"
    other.write_text(
        json.dumps({"interactions": [_pair("GET", "https://example.com/v1/things", None, {}, "ok")]})
    )
    with pytest.raises(
        CassetteImportError, match=r"interaction 0 \(GET https://example.com/v1/things\) is not an endpoint"
    ):
        import_files([loose, other], tmp_path / "out", source_repo="example/x")
    assert not (tmp_path / "out").exists()


def test_an_imported_cassette_with_a_secret_in_a_body_is_refused(tmp_path):
    leaked = dict(
        ANSWER, choices=[{"index": 0, "message": {"role": "assistant", "content": "key sk-proj-" + "a" * 40}}]
    )
    source = tmp_path / "leak.json"
    pair = _pair(
        "POST", "https://api.openai.com/v1/chat/completions", None, {}, {"string": json.dumps(leaked)}
    )
    source.write_text(json.dumps({"interactions": [pair]}))
    with pytest.raises(SecretInCassette, match=r"refusing to write .*leak\.yaml.*nothing was written"):
        import_files([source], tmp_path / "out", source_repo="example/x")
    assert not (tmp_path / "out").exists()


# --- wireconf cassettes in vcrpy ---------------------------------------------------------------------


def test_vcrpy_replays_a_wireconf_cassette_through_the_sdk_and_keeps_its_metadata(tmp_path):
    name = next((REPO / "cassettes" / "openai").glob("chat_stream__01__*.yaml")).name
    original = (REPO / "cassettes" / "openai" / name).read_text()
    (tmp_path / name).write_text(original)
    my_vcr = vcr.VCR(cassette_library_dir=str(tmp_path), serializer="wireconf", record_mode="new_episodes")
    my_vcr.register_serializer("wireconf", cassette_format)
    client = openai.OpenAI(
        api_key="sk-replay", http_client=httpx2.Client(), max_retries=0
    )  # a real transport
    with my_vcr.use_cassette(name) as cassette:
        stream = client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "Say this is a test"}], stream=True
        )
        text = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
        assert cassette.play_count == 1
        cassette.dirty = True  # vcrpy saves: the wireconf block must survive its round trip
    assert text == "This is a test. How can I assist you today?"
    saved = (tmp_path / name).read_text()
    assert saved.startswith("wireconf:\n  format: 1\n  provenance: imported\n")
    assert (
        cassette_format.deserialize(saved)["interactions"]
        == cassette_format.deserialize(original)["interactions"]
    )


def test_vcrpy_users_get_scrubbing_and_the_scan_with_the_persister_and_hooks(tmp_path):
    my_vcr = vcr.VCR(
        cassette_library_dir=str(tmp_path),
        serializer="wireconf",
        record_mode="once",
        before_record_request=before_record_request,
        before_record_response=before_record_response,
    )
    my_vcr.register_serializer("wireconf", cassette_format)
    my_vcr.register_persister(WireconfPersister)
    client = openai.OpenAI(
        api_key="sk-test-not-a-key",
        http_client=httpx2.Client(transport=httpx2.MockTransport(gzip_server)),
        max_retries=0,
    )
    with my_vcr.use_cassette("scrubbed.yaml"):
        client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])
    text = (tmp_path / "scrubbed.yaml").read_text()
    assert "sk-test-not-a-key" not in text and "organization" not in text and "cookie" not in text
    assert "json:\n        id: chatcmpl-vcr1" in text

    def leaking_server(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json=dict(ANSWER, id="sk-proj-" + "b" * 40))

    client = openai.OpenAI(
        api_key="x", http_client=httpx2.Client(transport=httpx2.MockTransport(leaking_server)), max_retries=0
    )
    unpatched = (httpx2.MockTransport.handle_request, httpx2.MockTransport.handle_async_request)
    try:
        with pytest.raises(SecretInCassette), my_vcr.use_cassette("leaky.yaml"):
            client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])
    finally:
        # vcrpy saves before it unpatches (CassetteContextDecorator.__exit__), so a persister that
        # refuses leaves vcrpy's transport patches in place for the rest of the process; put them back,
        # or every later SDK stream in this worker is read whole by the stale patch
        httpx2.MockTransport.handle_request, httpx2.MockTransport.handle_async_request = unpatched
    assert not (tmp_path / "leaky.yaml").exists()

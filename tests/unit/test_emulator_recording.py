"""Record mode through the emulator (``wireconf.emulator.recording``): a runtime given only the
placeholder key records against the fake provider (``tests/fake_provider.py``, on 127.0.0.1) through
its case's site; the process that forwards puts the real credentials in, as each provider's API
reference says they are sent; the cassette is written by the one writer (scrubbed, scanned, a secret
refused) and replays; the forked runner's passage adds the key in the pytest process."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.fake_provider import PLANTED_KEYS, FakeProvider
from tests.unit.test_emulator import sdk_client
from wireconf.cassettes.exchange import Exchange
from wireconf.cassettes.passage import Passage, PassageRefused, close_quietly, open_passage
from wireconf.cassettes.store import read_cassette
from wireconf.cassettes.writer import SecretInCassette
from wireconf.emulator.answers import ExchangeAnswers
from wireconf.emulator.recording import (
    DirectUpstream,
    PassageUpstream,
    RecordingAnswers,
    Upstream,
    upstream_url,
)
from wireconf.emulator.routes import PLACEHOLDER_KEY
from wireconf.emulator.server import Emulator
from wireconf.providers.registry import APIS, PROVIDER_OF, PROVIDERS, SECRET_VARIABLES
from wireconf.providers.runtime_environ import runtime_environ

CALLS = [
    ("openai.chat", False),
    ("openai.chat", True),
    ("anthropic.messages", False),
    ("anthropic.messages", True),
    ("gemini.generate_content", False),
    ("gemini.generate_content", True),
]
REAL_KEY = {"openai": PLANTED_KEYS.openai, "anthropic": PLANTED_KEYS.anthropic, "google": PLANTED_KEYS.gemini}
KEY_HEADER = {"openai": "authorization", "anthropic": "x-api-key", "google": "x-goog-api-key"}


@pytest.fixture(scope="module")
def emulator():
    with Emulator() as running:
        yield running


@pytest.fixture
def runtime_env(fake_provider: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The pytest process's environment (the user's keys and base URLs: the fake's), returned; the
    process's own made the runtime's (``runtime_environ``), so that nothing an SDK reads from it holds
    a key."""
    user = {**os.environ, **fake_provider.environ()}
    for name in SECRET_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in runtime_environ(user).items():
        monkeypatch.setenv(name, value)
    return user


def exchange_for(api: str, path: Path, environ: Mapping[str, str], mode: str = "once") -> Exchange:
    cassette = read_cassette(path, path.stem) if path.exists() else None
    provider = PROVIDER_OF[api].name
    return Exchange(path.stem, path, cassette, mode, api, provider, environ)


def call(emulator: Emulator, api: str, stream: bool, responder: Any) -> tuple[Any, list[Any]]:
    """The runtime's side: the api's SDK call on a client given the site's endpoint (the placeholder
    key), read to its end; the site's refusals."""
    with emulator.serving(api, responder) as site:
        client = sdk_client(site.endpoint(), asynchronous=False)
        assert site.endpoint().key == PLACEHOLDER_KEY
        result = APIS[api].call(client, {}, stream)
        value = (
            [event.model_dump(mode="json") for event in result] if stream else result.model_dump(mode="json")
        )
        return value, list(site.refused)


def forwarded_key(fake: FakeProvider, provider: str) -> str | None:
    headers = {k.lower(): v for k, v in fake.requests[-1]["headers"].items()}
    value = headers.get(KEY_HEADER[provider])
    return value.removeprefix("Bearer ") if value is not None else None


@pytest.mark.parametrize(("api", "stream"), CALLS, ids=[f"{a}{'-stream' if s else ''}" for a, s in CALLS])
def test_a_runtime_holding_the_placeholder_records_through_the_emulator(
    emulator, fake_provider, runtime_env, tmp_path, api, stream
):
    provider = PROVIDER_OF[api].name
    path = tmp_path / "recorded.yaml"
    exchange = exchange_for(api, path, runtime_env)
    recorded, refused = call(emulator, api, stream, RecordingAnswers(exchange, DirectUpstream(runtime_env)))
    assert refused == []
    assert "said" in str(recorded)  # the fake answers "You said: …" (a stream: word by word)
    # the provider got the real key, in the header its API reference names; never the placeholder
    assert forwarded_key(fake_provider, provider) == REAL_KEY[provider]
    assert PLACEHOLDER_KEY not in str(fake_provider.requests[-1])
    assert not any(value in os.environ.values() for value in REAL_KEY.values())

    exchange.finish("a-case", "a-runtime")
    assert exchange.refused is None and exchange.written == path
    text = path.read_text()
    assert "PLANTED" not in text and PLACEHOLDER_KEY not in text

    # and it replays, with the provider gone
    sent = len(fake_provider.requests)
    replay = exchange_for(api, path, runtime_env, mode="none")
    replayed, refused = call(emulator, api, stream, ExchangeAnswers(replay))
    assert refused == [] and len(fake_provider.requests) == sent
    assert unframed(replayed) == unframed(recorded)


def unframed(value: Any) -> Any:
    """An SDK object's data without google-genai's copy of the HTTP headers (the cassette keeps only the
    allowlisted ones: the provider's ``date`` and secret-bearing headers are not replayed)."""
    if isinstance(value, list):
        return [unframed(item) for item in value]
    return {k: v for k, v in value.items() if k != "sdk_http_response"}


def test_a_secret_in_the_answer_is_still_refused_and_nothing_is_written(
    emulator, fake_provider, runtime_env, tmp_path
):
    fake_provider.leak_in_answer = True
    path = tmp_path / "leaky.yaml"
    exchange = exchange_for("openai.chat", path, runtime_env)
    call(emulator, "openai.chat", False, RecordingAnswers(exchange, DirectUpstream(runtime_env)))
    exchange.finish("a-case", "a-runtime")
    assert isinstance(exchange.refused, SecretInCassette)
    assert not path.exists()


def test_new_episodes_replays_what_matches_and_records_the_rest(
    emulator, fake_provider, runtime_env, tmp_path
):
    path = tmp_path / "episodes.yaml"
    first = exchange_for("openai.chat", path, runtime_env)
    call(emulator, "openai.chat", False, RecordingAnswers(first, DirectUpstream(runtime_env)))
    first.finish("a-case", "a-runtime")
    sent = len(fake_provider.requests)
    again = exchange_for("openai.chat", path, runtime_env, mode="new_episodes")
    call(emulator, "openai.chat", False, RecordingAnswers(again, DirectUpstream(runtime_env)))
    assert len(fake_provider.requests) == sent and again.sent[0].answered_by == 0
    call(emulator, "openai.chat", True, RecordingAnswers(again, DirectUpstream(runtime_env)))
    assert len(fake_provider.requests) == sent + 1


def test_the_forked_runners_passage_adds_the_key_in_the_pytest_process(
    emulator, fake_provider, runtime_env, tmp_path
):
    """The runner's side holds no key: ``PassageUpstream`` names the provider, and the pytest process's
    end of the passage (``open_passage``, its environment the user's) adds the credentials."""
    theirs, ours = open_passage(runtime_env)
    try:
        upstream = PassageUpstream(Passage(theirs))
        exchange = exchange_for("anthropic.messages", tmp_path / "passage.yaml", os.environ)
        exchange.environ = runtime_env  # the exchange checks origins against the user's base URLs
        _, refused = call(emulator, "anthropic.messages", False, RecordingAnswers(exchange, upstream))
        assert refused == []
        assert forwarded_key(fake_provider, "anthropic") == PLANTED_KEYS.anthropic
        # a request naming a provider goes only to that provider's origins (never sent: no network)
        with pytest.raises(PassageRefused, match="not openai's origin"):
            Passage(theirs).forward(
                "POST", "https://api.anthropic.com/v1/messages", [], b"", provider="openai"
            )
    finally:
        close_quietly(theirs)
        close_quietly(ours)


class _Down:
    def forward(self, *args: Any) -> Any:
        raise ConnectionError("connection refused")


def test_a_provider_that_cannot_be_reached_is_a_network_attempt_never_an_answer(
    emulator, runtime_env, tmp_path
):
    upstream: Upstream = _Down()
    exchange = exchange_for("openai.chat", tmp_path / "down.yaml", runtime_env)
    with emulator.serving("openai.chat", RecordingAnswers(exchange, upstream)) as site:
        client = sdk_client(site.endpoint(), asynchronous=False)
        with pytest.raises(Exception, match="Connection error"):
            APIS["openai.chat"].call(client, {}, False)
        assert [r.why for r in site.refused] == [
            "record mode: the provider was not reached (connection refused)"
        ]
    assert exchange.new == []


@pytest.mark.parametrize(
    ("provider", "url", "base", "expected"),
    [
        ("openai", "https://api.openai.com/v1/chat/completions", "", "https://api.openai.com/v1/chat/completions"),
        ("openai", "https://api.openai.com/v1/chat/completions", "http://127.0.0.1:8/v1", "http://127.0.0.1:8/v1/chat/completions"),
        ("openai", "https://api.openai.com/v1/embeddings", "https://gw.example/openai/v1/", "https://gw.example/openai/v1/embeddings"),
        ("anthropic", "https://api.anthropic.com/v1/messages", "http://127.0.0.1:8", "http://127.0.0.1:8/v1/messages"),
        ("anthropic", "https://api.anthropic.com/v1/messages", "https://gw.example/anthropic", "https://gw.example/anthropic/v1/messages"),
        (
            "google",
            "https://generativelanguage.googleapis.com/v1beta/models/m:streamGenerateContent?alt=sse",
            "http://127.0.0.1:8/",
            "http://127.0.0.1:8/v1beta/models/m:streamGenerateContent?alt=sse",
        ),
    ],
)  # fmt: skip
def test_a_request_goes_where_the_users_sdk_would_send_it(provider, url, base, expected):
    """The SDKs' own base-URL variables: OpenAI's ends with the version (``https://api.openai.com/v1``,
    its SDK's default), Anthropic's and Google's are the origin (the SDK adds the version)."""
    environ = {PROVIDERS[provider].base_url_variable: base} if base else {}
    assert upstream_url(url, PROVIDERS[provider], environ) == expected


def test_the_credentials_replace_whatever_the_runtime_sent():
    environ = {"OPENAI_API_KEY": "sk-real", "OPENAI_ORG_ID": "org-real", "GEMINI_API_KEY": "AIza-real"}
    sent = [
        ("Authorization", f"Bearer {PLACEHOLDER_KEY}"),
        ("OpenAI-Organization", "org-fake"),
        ("X-Other", "1"),
    ]
    url, headers = PROVIDERS["openai"].authorised("https://api.openai.com/v1/x", sent, environ)
    assert headers == [
        ("X-Other", "1"),
        ("Authorization", "Bearer sk-real"),
        ("OpenAI-Organization", "org-real"),
    ]
    sent = [("x-goog-api-key", PLACEHOLDER_KEY), ("authorization", f"Bearer {PLACEHOLDER_KEY}")]
    url, headers = PROVIDERS["google"].authorised(
        f"https://g.example/v1beta/m:x?alt=sse&key={PLACEHOLDER_KEY}", sent, environ
    )
    assert headers == [("x-goog-api-key", "AIza-real")] and url == "https://g.example/v1beta/m:x?alt=sse"
    url, headers = PROVIDERS["anthropic"].authorised(
        "https://a.example/v1/messages", [("x-api-key", "p")], {}
    )
    assert headers == []  # no key set: none is invented


def test_a_runtimes_environment_holds_the_placeholder_and_no_credential():
    environ = {name: f"secret-{name}" for name in SECRET_VARIABLES}
    environ |= {"PATH": "/bin", "OPENAI_BASE_URL": "http://127.0.0.1:8/v1"}
    env = runtime_environ(environ, {"anthropic": "http://127.0.0.1:9/seat"})
    assert not any(value.startswith("secret-") for value in env.values())
    assert env["OPENAI_API_KEY"] == env["ANTHROPIC_API_KEY"] == env["GEMINI_API_KEY"] == PLACEHOLDER_KEY
    assert env["PATH"] == "/bin" and env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9/seat"
    assert "OPENAI_BASE_URL" not in env  # the user's upstream is the proxy's to use, not the runtime's


@pytest.mark.parametrize("api", ["openai.chat", "anthropic.messages", "gemini.generate_content"])
def test_the_in_process_record_client_holds_only_the_placeholder(fake_provider, runtime_env, tmp_path, api):
    """The SDK client an e2e case hands an in-process runtime in record mode: built with the
    placeholder, its requests given the real key where they leave (``cassette_transport``), read from
    the pytest process's environment, not from the client."""
    from wireconf.sdk.replay import e2e_client

    provider = PROVIDER_OF[api].name
    exchange = exchange_for(api, tmp_path / "in-process.yaml", runtime_env)
    client = e2e_client(api, exchange)
    if provider != "google":  # google-genai keeps its key on a private attribute
        assert client.api_key == PLACEHOLDER_KEY
    APIS[api].call(client, {}, False)
    assert forwarded_key(fake_provider, provider) == REAL_KEY[provider]
    assert PLACEHOLDER_KEY not in str(fake_provider.requests[-1])


def test_a_credential_the_provider_echoes_is_withheld_from_the_runtime():
    """What the runtime is answered, never what is kept: the exchange keeps the answer as it came (and
    the writer refuses it); the runtime gets every rendering of the key replaced."""
    import base64

    from wireconf.cassettes.store import RecordedResponse
    from wireconf.emulator.recording import withheld

    key = PLANTED_KEYS.openai
    encoded = base64.b64encode(key.encode()).decode()
    response = RecordedResponse(200, {"x-echo-key": [key]}, f'{{"text": "{key}", "b": "{encoded}"}}'.encode())
    shown = withheld(response, {"OPENAI_API_KEY": key})
    assert shown.headers == {"x-echo-key": ["<$OPENAI_API_KEY>"]}
    assert key.encode() not in shown.body and encoded.encode() not in shown.body
    assert shown.body.count(b"<$OPENAI_API_KEY>") == 2
    assert withheld(response, {}) is response


def test_an_e2e_site_records_only_in_record_mode(fake_provider, runtime_env, tmp_path):
    from wireconf.emulator.recording import e2e_responder

    assert isinstance(
        e2e_responder(exchange_for("openai.chat", tmp_path / "a.yaml", runtime_env, "none")), ExchangeAnswers
    )
    recording = e2e_responder(exchange_for("openai.chat", tmp_path / "a.yaml", runtime_env))
    assert isinstance(recording, RecordingAnswers) and isinstance(recording.upstream, DirectUpstream)


@pytest.mark.parametrize("buffered", [False, True], ids=["as-it-reads", "buffered"])
def test_an_incremental_recording_gates_the_stream_it_forwards(
    emulator, fake_provider, runtime_env, tmp_path, buffered
):
    """Record mode judges ``incremental`` as replay does: the provider's stream, once forwarded, is
    written to the runtime with its last event held for the yields (``e2e_responder(hold_last=True)``)."""
    from wireconf.emulator.recording import e2e_responder

    exchange = exchange_for("openai.chat", tmp_path / "recorded.yaml", runtime_env)
    responder = e2e_responder(exchange, hold_last=True)
    assert isinstance(responder, RecordingAnswers)
    responder.upstream = DirectUpstream(runtime_env)
    responder.hold = (60.0 if not buffered else 0.2, 0.5)
    with emulator.serving("openai.chat", responder) as site:
        client = sdk_client(site.endpoint(), asynchronous=False)
        stream = APIS["openai.chat"].call(client, {}, True)
        for _ in list(stream) if buffered else stream:
            exchange.probes[0].mark_yield()
        assert site.refused == []
    [probe] = exchange.probes
    assert probe.total > 2 and probe.stalled is buffered
    first = probe.read_at_yield[0]
    assert first == (probe.total if buffered else probe.total - 1)

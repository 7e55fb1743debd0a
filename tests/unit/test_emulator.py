"""The provider emulator (``wireconf.emulator``): the official SDKs, sync and async, and plain HTTP
clients pointed at a case's site read the case's recorded bytes exactly as today's in-memory replay
hands them over; every request is captured as sent; an event stream goes one recorded event per
chunk; media downloads the case names are answered through its proxy; anything else is refused, kept
as a network attempt, and nothing reaches a network; one case's site never answers for another."""

from __future__ import annotations

import asyncio
import inspect
import socket
import ssl
from pathlib import Path
from typing import Any

import h11
import httpx
import pytest

from tests.conftest import REPO
from wireconf.cassettes.downloads import fixture
from wireconf.cassettes.exchange import Exchange
from wireconf.cassettes.network_guard import GUARD
from wireconf.cassettes.store import Interaction, RecordedResponse, read_cassette
from wireconf.core.stream_probe import StreamProbe, split_events
from wireconf.emulator.answers import ExchangeAnswers, RecordedAnswers
from wireconf.emulator.handler import FRAMING_HEADERS
from wireconf.emulator.routes import DOWNLOAD_PATH, PLACEHOLDER_KEY, Endpoint, public_endpoint
from wireconf.emulator.server import Emulator
from wireconf.providers.registry import APIS, PROVIDER_OF
from wireconf.sdk.replay import SdkReplay

CHAT = "openai/chat__01__opentelemetry-python-contrib__test_chat_completion_with_content_i0"
CHAT_OTHER = "openai/chat__05__opentelemetry-python-contrib__test_chat_completion_multiple_choices_i0"
CHAT_404 = "openai/chat__19__opentelemetry-python-contrib__cassettes_test_chat_completion_404_i0"
CHAT_STREAM = "openai/chat_stream__03__llm__test_tools_test_tool_use_basic_i0"
ANTHROPIC_STREAM = "anthropic/anthropic_stream__01__llm-anthropic__test_anthropic_test_stream_events_text_i0"
GEMINI_STREAM = "google/gemini_stream__01__openinference__test_instrumentation_test_streaming_text_content_i0"

RECORDINGS = [
    ("openai.chat", CHAT),
    ("openai.chat", CHAT_STREAM),
    (
        "openai.responses",
        "openai/responses__01__opentelemetry-python-contrib__test_responses_create_captures_content_content_mode0_i0",
    ),
    (
        "openai.responses",
        "openai/responses_stream__03__opentelemetry-python-contrib__test_responses_create_streaming_captures_content_content_mode0_i0",
    ),
    (
        "openai.embeddings",
        "openai/embeddings__01__opentelemetry-python-contrib__test_embeddings_with_content_i0",
    ),
    (
        "openai.images",
        "openai/images__01__ruby-openai__images_generate_A_lion_cooking_pasta_wearing_a_hat_of_some_sort_i0",
    ),
    ("anthropic.messages", "anthropic/anthropic__01__logfire__test_sync_messages_version_latest_i0"),
    ("anthropic.messages", ANTHROPIC_STREAM),
    (
        "gemini.generate_content",
        "google/gemini__01__mirascope__test_call_with_params_google_gemini_2_5_flash_i0",
    ),
    ("gemini.generate_content", GEMINI_STREAM),
]
"""One recording of each api (and of each api's stream), each answered through the emulator."""

MEDIA = [
    {
        "role": "user",
        "content": [
            {"kind": "image", "value": "https://example.com/cat.png"},
            {"kind": "file", "value": "http://files.example/report", "mediaType": "application/pdf"},
        ],
    }
]


def interaction(name: str) -> Interaction:
    return read_cassette(REPO / "cassettes" / f"{name}.yaml", name).interactions[0]


@pytest.fixture(scope="module")
def emulator():
    with Emulator() as running:
        yield running


def sdk_client(endpoint: Endpoint, asynchronous: bool) -> Any:
    """The provider's official SDK pointed at the site as a user points it at a base URL (no private
    attribute: the forms of ``Endpoint`` are the ones each SDK takes)."""
    provider = PROVIDER_OF[endpoint.api].name
    if provider == "openai":
        import openai

        cls = openai.AsyncOpenAI if asynchronous else openai.OpenAI
        return cls(base_url=endpoint.api_base_url, api_key=endpoint.key, max_retries=0)
    if provider == "anthropic":
        import anthropic

        cls = anthropic.AsyncAnthropic if asynchronous else anthropic.Anthropic
        return cls(base_url=endpoint.origin, api_key=endpoint.key, max_retries=0)
    from google import genai
    from google.genai import types

    options = types.HttpOptions(base_url=endpoint.origin, api_version=endpoint.api_version)
    client = genai.Client(api_key=endpoint.key, http_options=options)
    return client.aio if asynchronous else client


def dumped(value: Any) -> Any:
    """An SDK object as data. google-genai keeps a copy of the HTTP headers: compared with their names in
    lower case (its async client is aiohttp's, which keeps the case they were sent in: the same header)
    and without those that frame the bytes on a socket (``Transfer-Encoding: chunked``, where an
    in-memory response had none: a recording without headers is an event stream by its body)."""
    data = value.model_dump(mode="json")
    http = data.get("sdk_http_response") if isinstance(data, dict) else None
    if isinstance(http, dict) and isinstance(http.get("headers"), dict):
        headers = {name.lower(): v for name, v in http["headers"].items()}
        http["headers"] = {name: v for name, v in headers.items() if name not in FRAMING_HEADERS}
    return data


def through_emulator(endpoint: Endpoint, stream: bool, asynchronous: bool) -> Any:
    """The api record's own SDK call, made on a client pointed at the site, read to its end."""
    call = APIS[endpoint.api].call
    client = sdk_client(endpoint, asynchronous)
    if not asynchronous:
        result = call(client, {}, stream)
        return [dumped(event) for event in result] if stream else dumped(result)

    async def run() -> Any:
        result = call(client, {}, stream)
        if inspect.isawaitable(result):
            result = await result
        return [dumped(event) async for event in result] if stream else dumped(result)

    return asyncio.run(run())


def in_memory(api: str, recorded: RecordedResponse) -> Any:
    """What today's replay (the SDK over a MockTransport) makes of the same bytes."""
    replay = SdkReplay()
    if recorded.is_event_stream:
        events = replay.stream_object(api, recorded, StreamProbe(split_events(recorded.body)))
        return [dumped(event) for event in events]
    return dumped(replay.response_object(api, recorded))


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize(("api", "name"), RECORDINGS, ids=[name.split("/")[1][:40] for _, name in RECORDINGS])
def test_the_official_sdks_read_the_recorded_bytes_as_in_memory_replay_does(
    emulator, api, name, asynchronous
):
    recorded = interaction(name)
    response = recorded.response
    site = emulator.open_site(api, RecordedAnswers(api, [response]), recorded_uri=recorded.request.uri)
    try:
        got = through_emulator(site.endpoint(), response.is_event_stream, asynchronous)
    finally:
        emulator.close_site(site)
    if response.header("content-type") is None:  # served with the type its provider sends
        kind = "text/event-stream" if response.is_event_stream else "application/json"
        headers = {**response.headers, "content-type": [kind]}
        response = RecordedResponse(response.status, headers, response.body)
    assert got == in_memory(api, response)
    [request] = site.captured
    assert request.method == "POST" and request.api == api
    assert request.url.startswith(public_endpoint(api, recorded.request.uri).origin)
    assert not site.refused
    if response.is_event_stream:
        [probe] = site.probes
        assert probe.read == probe.total == len(split_events(response.body))


def test_plain_http_gets_the_recorded_status_headers_and_body(emulator):
    recorded = interaction(CHAT_404).response
    assert recorded.status == 404
    site = emulator.open_site("openai.chat", RecordedAnswers("openai.chat", [recorded]))
    with httpx.Client() as client:
        answered = client.post(site.endpoint().api_base_url + "/chat/completions", json={"model": "x"})
    emulator.close_site(site)
    assert answered.status_code == 404
    assert answered.content == recorded.body
    kept = [
        (k.lower(), v) for k, vs in recorded.headers.items() for v in vs if k.lower() not in FRAMING_HEADERS
    ]
    assert kept and [(k, v) for k, v in answered.headers.multi_items() if k != "content-length"] == kept
    assert answered.headers["content-length"] == str(len(recorded.body))


def test_a_recording_kept_without_its_headers_is_served_with_its_providers_content_type(emulator):
    """openai-node reads a body by its type (text without one): a recording kept without headers gets
    the type its provider sends, as the JavaScript client's recorded responses do (``lib/recorded.js``)."""
    bare = [RecordedResponse(200, {}, b'{"id": "x"}'), RecordedResponse(200, {}, b"data: {}\n\n")]
    site = emulator.open_site("openai.chat", RecordedAnswers("openai.chat", bare))
    with httpx.Client() as client:
        url = site.endpoint().api_base_url + "/chat/completions"
        types = [client.post(url, json={"model": "x"}).headers.get("content-type") for _ in bare]
    emulator.close_site(site)
    assert types == ["application/json", "text/event-stream"]


@pytest.mark.parametrize("name", [CHAT_STREAM, ANTHROPIC_STREAM, GEMINI_STREAM])
def test_an_event_stream_goes_one_recorded_event_per_chunk(emulator, name):
    """Read with h11 (httpx's HTTP/1.1 parser), which reports where each chunk of the body starts and ends."""
    recorded = interaction(name)
    api = {"openai": "openai.chat", "anthropic": "anthropic.messages", "google": "gemini.generate_content"}[
        name.split("/")[0]
    ]
    site = emulator.open_site(
        api, RecordedAnswers(api, [recorded.response]), recorded_uri=recorded.request.uri
    )
    path = site.origin.removeprefix(emulator.url) + public_endpoint(api, recorded.request.uri).prefix
    path += {"openai.chat": "/chat/completions", "anthropic.messages": "/messages"}.get(
        api, "/models/m:streamGenerateContent?alt=sse"
    )
    status, chunks = raw_chunks(emulator.address, path, b'{"stream": true}')
    emulator.close_site(site)
    assert status == 200
    assert chunks == split_events(recorded.response.body)
    assert len(chunks) > 3


def raw_chunks(address: tuple[str, int], target: str, body: bytes) -> tuple[int, list[bytes]]:
    connection = h11.Connection(h11.CLIENT)
    host = f"{address[0]}:{address[1]}"
    headers = [("host", host), ("content-type", "application/json"), ("content-length", str(len(body)))]
    with socket.create_connection(address) as sock:
        sock.sendall(connection.send(h11.Request(method="POST", target=target, headers=headers)))
        sock.sendall(connection.send(h11.Data(data=body)) + connection.send(h11.EndOfMessage()))
        status, chunks, current = 0, [], b""
        while True:
            event = connection.next_event()
            if event is h11.NEED_DATA:
                connection.receive_data(sock.recv(65536))
            elif isinstance(event, h11.Response):
                status = event.status_code
                assert (b"transfer-encoding", b"chunked") in list(event.headers)
            elif isinstance(event, h11.Data):
                current = event.data if event.chunk_start else current + event.data
                if event.chunk_end:
                    chunks.append(current)
            elif isinstance(event, h11.EndOfMessage):
                return status, chunks


def test_a_request_is_captured_as_sent(emulator):
    recorded = interaction(CHAT).response
    site = emulator.open_site("openai.chat", RecordedAnswers("openai.chat", [recorded]))
    body = b'{"model": "x"}\x00\xff not JSON after all'
    with httpx.Client() as client:
        client.post(
            site.endpoint().api_base_url + "/chat/completions?a=1&b=%20",
            content=body,
            headers=[("X-Custom", "one"), ("x-custom", "two"), ("Authorization", "Bearer sk-what-it-sent")],
        )
    emulator.close_site(site)
    [request] = site.captured
    assert (request.method, request.path, request.query, request.body) == (
        "POST",
        "/v1/chat/completions",
        "a=1&b=%20",
        body,
    )
    assert request.url == "https://api.openai.com/v1/chat/completions?a=1&b=%20"
    assert [(k, v) for k, v in request.headers if k.lower() == "x-custom"] == [
        ("X-Custom", "one"),
        ("x-custom", "two"),
    ]
    assert request.header("authorization") == "Bearer sk-what-it-sent"


def test_a_body_of_unknown_length_is_refused_with_411(emulator):
    site = emulator.open_site("openai.chat", RecordedAnswers("openai.chat", [interaction(CHAT).response]))
    with httpx.Client() as client:
        answered = client.post(site.endpoint().api_base_url + "/chat/completions", content=iter([b"{}"]))
    emulator.close_site(site)
    assert answered.status_code == 411
    assert [r.why for r in site.refused] == ["a request body of unknown length"]
    assert site.captured == []


def test_requests_outside_the_case_are_refused_and_nothing_reaches_the_network(emulator):
    recorded = interaction(CHAT).response
    site = emulator.open_site("openai.chat", RecordedAnswers("openai.chat", [recorded]), messages=MEDIA)
    endpoint = site.endpoint()
    verify = ssl.create_default_context(cafile=endpoint.ca_file)
    strays = len(emulator.strays)
    with GUARD.armed() as attempts, GUARD.allowed():  # the test's client may connect, nothing else
        with httpx.Client() as client:
            attempted = [
                ("GET", endpoint.api_base_url + "/models"),  # another endpoint of the provider
                ("POST", endpoint.api_base_url + "/embeddings"),  # another api
                ("POST", emulator.url + "/not-a-token/v1/chat/completions"),  # no site
            ]
            for method, url in attempted:
                with pytest.raises(httpx.RemoteProtocolError):  # the connection closes: no response
                    client.request(method, url, json={})
            assert client.post(endpoint.api_base_url + "/chat/completions", json={}).status_code == 200
            with pytest.raises(httpx.RemoteProtocolError):  # the recording answered its one request
                client.post(endpoint.api_base_url + "/chat/completions", json={})
        with httpx.Client(proxy=endpoint.proxy, verify=verify) as through_proxy:
            for url in ("https://example.com/dog.png", "https://elsewhere.example/cat.png"):
                with pytest.raises(httpx.RemoteProtocolError):  # closed: no response, tunnel or not
                    through_proxy.get(url)
            with pytest.raises(httpx.RemoteProtocolError):
                through_proxy.post("https://example.com/cat.png", content=b"upload")
    emulator.close_site(site)
    assert attempts == []  # the emulator resolved, connected and sent nowhere
    assert [str(r) for r in site.refused] == [
        "request GET https://api.openai.com/v1/models refused: not the openai.chat endpoint (POST)",
        "request POST https://api.openai.com/v1/embeddings refused: not the openai.chat endpoint (POST)",
        "request POST https://api.openai.com/v1/chat/completions refused: the case's recorded response has "
        "answered its request already (a recording answers one: a second call, or a retry)",
        "request GET https://example.com/dog.png refused: not a media URL the case names",
        "request CONNECT https://elsewhere.example:443 refused: "
        "no media URL of the case's input is on this host",
        "request POST https://example.com/cat.png refused: not a media URL the case names",
    ]
    assert [(r.method, r.why) for r in emulator.strays[strays:]] == [("POST", "no open site has this token")]


def test_the_media_the_case_names_are_downloaded_through_the_proxy(emulator):
    import requests

    site = emulator.open_site("openai.chat", RecordedAnswers("openai.chat", []), messages=MEDIA)
    endpoint = site.endpoint()
    with httpx.Client(
        proxy=endpoint.proxy, verify=ssl.create_default_context(cafile=endpoint.ca_file)
    ) as client:
        image = client.get("https://example.com/cat.png")
        head = client.head("https://example.com/cat.png")
        pdf = client.get("http://files.example/report")  # plain HTTP: the absolute form, no tunnel
    with requests.Session() as session:
        session.proxies = {"https": endpoint.proxy, "http": endpoint.proxy}
        again = session.get("https://example.com:443/cat.png", verify=endpoint.ca_file)
    with httpx.Client() as client:  # the site's own download endpoint, for a downloader given a fetch
        download = endpoint.download
        assert download == f"{endpoint.origin}{DOWNLOAD_PATH}"
        fetched = client.get(download, params={"url": "https://example.com/cat.png"})
        with pytest.raises(httpx.RemoteProtocolError):
            client.get(download, params={"url": "https://example.com/other.png"})
    emulator.close_site(site)
    assert fetched.content == fixture("image/png") and fetched.headers["content-type"] == "image/png"
    assert [str(r) for r in site.refused] == [
        "request GET https://example.com/other.png refused: not a media URL the case names"
    ]
    site.refused.clear()
    assert (image.status_code, image.headers["content-type"], image.content) == (
        200,
        "image/png",
        fixture("image/png"),
    )
    assert (head.status_code, head.content, head.headers["content-length"]) == (
        200,
        b"",
        str(len(image.content)),
    )
    assert (pdf.headers["content-type"], pdf.content) == ("application/pdf", fixture("application/pdf"))
    assert again.content == fixture("image/png")
    assert site.refused == [] and site.captured == []  # downloads are not requests to the provider


def test_a_second_cases_url_does_not_answer_for_another(emulator):
    first, second = interaction(CHAT).response, interaction(CHAT_OTHER).response
    assert first.body != second.body
    one = emulator.open_site("openai.chat", RecordedAnswers("openai.chat", [first, first]), messages=MEDIA)
    two = emulator.open_site("openai.chat", RecordedAnswers("openai.chat", [second]))
    assert one.token != two.token and len(one.token) >= 22
    with httpx.Client() as client:
        assert client.post(two.endpoint().api_base_url + "/chat/completions", json={}).content == second.body
        assert client.post(one.endpoint().api_base_url + "/chat/completions", json={}).content == first.body
        assert len(two.captured) == len(one.captured) == 1
        emulator.close_site(one)
        with pytest.raises(httpx.RemoteProtocolError):  # closed: its URL answers nothing any more
            client.post(one.endpoint().api_base_url + "/chat/completions", json={})
    verify = ssl.create_default_context(cafile=two.endpoint().ca_file)
    with (
        httpx.Client(proxy=two.endpoint().proxy, verify=verify) as client,
        pytest.raises(httpx.RemoteProtocolError),
    ):
        client.get("https://example.com/cat.png")  # the first case's media, asked for by the second
    emulator.close_site(two)
    assert len(one.captured) == 1
    assert [r.why for r in two.refused] == ["no media URL of the case's input is on this host"]
    assert emulator.strays[-1].why == "no open site has this token"


def test_an_e2e_case_is_answered_by_its_exchange(emulator):
    import openai

    name = CHAT
    path = REPO / "cassettes" / f"{name}.yaml"
    cassette = read_cassette(path, name)
    exchange = Exchange(name, Path(path), cassette, "none", "openai.chat", "openai", {})
    site = emulator.open_site("openai.chat", ExchangeAnswers(exchange))
    client = sdk_client(site.endpoint(), asynchronous=False)
    message = {"role": "user", "content": "Say this is a test"}
    answered = client.chat.completions.create(model="gpt-4o-mini", messages=[message])
    with pytest.raises(openai.APIConnectionError):  # unmatched: a failed connection, as in-process
        client.chat.completions.create(model="gpt-4o-mini", messages=[message])
    emulator.close_site(site)
    assert answered.choices[0].message.content == "This is a test."
    first, second = exchange.sent
    assert (first.uri, first.answered_by, first.json["messages"]) == (
        "https://api.openai.com/v1/chat/completions",
        0,
        [message],
    )
    assert second.answered_by is None
    [(unmatched, lines)] = exchange.unmatched
    assert unmatched is second and "already answered an earlier request" in lines[1]
    assert site.refused == []  # an unmatched request is the verdict's, not a network attempt
    assert dict(first.headers)["authorization"] == f"Bearer {PLACEHOLDER_KEY}"


@pytest.mark.parametrize(
    ("api", "uri", "origin", "prefix"),
    [
        ("openai.chat", None, "https://api.openai.com", "/v1"),
        ("openai.images", None, "https://api.openai.com", "/v1"),
        ("anthropic.messages", None, "https://api.anthropic.com", "/v1"),
        (
            "gemini.generate_content",
            "https://generativelanguage.googleapis.com/v1beta/models/x:generateContent",
            "https://generativelanguage.googleapis.com",
            "/v1beta",
        ),
        (
            "gemini.generate_content",
            "https://generativelanguage.googleapis.com/v1/models/x:generateContent",
            "https://generativelanguage.googleapis.com",
            "/v1",
        ),
    ],
)
def test_where_an_api_lives_is_asked_of_its_sdk(api, uri, origin, prefix):
    """The providers' API references: POST https://api.openai.com/v1/chat/completions,
    https://api.anthropic.com/v1/messages, https://generativelanguage.googleapis.com/v1beta/models/...;
    the origin is one of the record's hosts."""
    found = public_endpoint(api, uri)
    assert (found.origin, found.prefix) == (origin, prefix)
    assert found.origin.removeprefix("https://") in PROVIDER_OF[api].hosts


class _Broken:
    def respond(self, request):
        raise RuntimeError("a responder's own bug")


def test_a_failure_of_the_emulator_is_a_refusal_never_an_answer(emulator):
    site = emulator.open_site("openai.chat", _Broken())
    with httpx.Client() as client, pytest.raises(httpx.RemoteProtocolError):
        client.post(site.endpoint().api_base_url + "/chat/completions", json={})
    emulator.close_site(site)
    [refused] = site.refused
    assert refused.why == 'the emulator failed (a wireconf bug): RuntimeError("a responder\'s own bug")'


def test_the_certificate_authority_is_made_only_for_a_case_that_names_media_over_https():
    with Emulator() as fresh:
        plain = fresh.open_site("openai.chat", RecordedAnswers("openai.chat", []), messages=MEDIA[:0])
        assert plain.endpoint().ca_file is None and fresh._authority is None
        media = fresh.open_site("openai.chat", RecordedAnswers("openai.chat", []), messages=MEDIA)
        ca_file = media.endpoint().ca_file
        assert ca_file is not None and Path(ca_file).read_bytes().startswith(b"-----BEGIN CERTIFICATE-----")
    assert not Path(ca_file).exists()  # removed with the emulator


def test_a_site_is_opened_only_on_a_running_emulator():
    from wireconf.emulator.routes import EmulatorError

    stopped = Emulator()
    try:
        with pytest.raises(EmulatorError, match="not serving"):
            stopped.open_site("openai.chat", RecordedAnswers("openai.chat", []))
    finally:
        stopped.close()
    with pytest.raises(EmulatorError, match=r"no provider record declares the api 'nobody\.chat'"):
        public_endpoint("nobody.chat")


def test_a_listener_stopped_is_served_no_more_and_the_others_are():
    """``serve_listener`` returns how to stop serving that listener (its runtime's namespace died): its
    thread ends and its socket is closed, while the emulator's own listener answers on."""
    import threading

    with Emulator() as emulator:
        before = {t for t in threading.enumerate() if t.name == "wireconf-emulator"}
        # the emulator's own socket, duplicated: a listener at its address, as one handed over is
        listener = socket.socket(fileno=socket.dup(emulator._server.socket.fileno()))
        stop = emulator.serve_listener(listener)
        added = {t for t in threading.enumerate() if t.name == "wireconf-emulator"} - before
        assert len(added) == 1
        stop()
        [thread] = added
        assert not thread.is_alive() and listener.fileno() == -1
        stop()  # a second time: nothing more
        with socket.create_connection(emulator.address, timeout=5) as client:
            client.sendall(b"GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n")
            client.recv(1)  # answered (closed) by the emulator's own listener, not hung
        assert [stray.why for stray in emulator.strays] == ["no open site has this token"]


def test_for_a_runtime_in_another_process_a_request_waits_for_the_gil_at_most_its_switch_interval():
    """A runtime in another process waits on each answer while this process's main thread computes: the
    interpreter's switch interval (5 ms by default) bounds how long the answering thread waits, lowered
    once the emulator is told (``hurry``: an ``exec:`` runtime's case, a namespace's listener served).
    For a runtime in this process it stays: its thread waits without the GIL, and a shorter interval
    only costs its other threads' CPU."""
    import sys

    from wireconf.emulator.server import SWITCH_INTERVAL

    before = sys.getswitchinterval()
    with Emulator() as emulator:
        assert sys.getswitchinterval() == before
        emulator.hurry()
        emulator.hurry()
        assert sys.getswitchinterval() == min(before, SWITCH_INTERVAL) < 0.005
    assert sys.getswitchinterval() == before


def test_an_exec_runtimes_case_hurries_the_emulator_and_an_in_process_ones_does_not(monkeypatch):
    import sys

    from wireconf.emulator.answers import RecordedAnswers
    from wireconf.kinds import sites

    class InProcess:
        pass

    class Remote:  # adapter_contract.OutOfProcess's members, as ExecAdapter has them
        def send_ahead(self, case: str, call: Any) -> None: ...

        def time_limit(self, seconds: float | None) -> Any: ...

    before = sys.getswitchinterval()
    with Emulator() as emulator:
        monkeypatch.setattr(sites, "emulator", lambda: emulator)
        for adapter, hurried in ((InProcess(), False), (Remote(), True)):
            case = sites.CaseSites(adapter)
            case.open("openai.chat", RecordedAnswers("openai.chat", []))
            assert case.close() == []
            assert (sys.getswitchinterval() < before) is hurried
    assert sys.getswitchinterval() == before

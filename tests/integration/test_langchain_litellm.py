"""LangChain's chat models and LiteLLM's ``completion`` through the corpus, for real (installed only in
their own environments, where tests/integration/test_runtime_envs.py runs these tests), each against its
committed baseline with no error; and fakes that refuse what the real runtimes refuse, checked against
the real runtimes."""

from __future__ import annotations

import contextlib
import importlib.util
import json

import httpx
import pytest
import yaml

from tests.conftest import REPO, assert_all_ruled, assert_reasons_true
from tests.runtime_envs import in_process
from wireconf.adapters import langchain_inputs, openai_inputs
from wireconf.adapters.http_answer import observing
from wireconf.cassettes.downloads import Downloads, fixture
from wireconf.cassettes.network_guard import NetworkBlocked
from wireconf.commands.findings import listed_runtimes

RUNTIMES = {r.name: r for r in listed_runtimes(REPO / "conformance" / "runtimes.yaml")}
KINDS = ("wire", "process", "stream", "e2e")

needs = {
    "langchain": in_process("langchain", "langchain_openai"),
    "litellm": in_process("litellm", "litellm"),
}
"""Each runs in its runtime's environment (tests/integration/test_runtime_envs.py), skipped elsewhere."""


def test_both_runtimes_are_listed_with_their_entry_points():
    assert RUNTIMES["langchain"].impl == "langchain"
    assert RUNTIMES["litellm"].impl == "litellm"


@pytest.mark.third_party
@pytest.mark.parametrize("name", ["langchain", "litellm"])
def test_each_runtime_runs_its_kinds_against_its_committed_baseline(name, corpus, run_corpus):
    """Every case of the declared kinds gets a verdict (no error), failures are listed in the baseline
    with a reason that names a function of the runtime, and the gate holds (a regression fails it)."""
    module = {"langchain": "langchain_openai", "litellm": "litellm"}[name]
    if importlib.util.find_spec(module) is None:  # run in its environment by test_runtime_envs.py
        pytest.skip(in_process(name, module).kwargs["reason"])
    baseline = REPO / "conformance" / f"{name}.yaml"
    run = run_corpus(f"--impl={name}", f"--baseline={baseline}")
    assert run.with_outcome("error") == set(), {c: run.longreprs[c][:300] for c in run.with_outcome("error")}
    assert_all_ruled(run, name)
    assert_reasons_true(run, baseline)
    judged = {c for c, o in run.outcomes.items() if o in ("passed", "failed")}
    assert {c.kind for c in corpus.cases() if c.id in judged} == set(KINDS)
    assert run.ret == 0, "a failure the baseline does not list, or a listed case that passes"
    reasons = yaml.safe_load(baseline.read_text(encoding="utf-8"))["expected_failures"]
    assert reasons and set(reasons) == run.with_outcome("failed")
    named = "`langchain" if name == "langchain" else "`litellm"
    unnamed = [c for c, reason in reasons.items() if named not in reason]
    assert unnamed == [], "every reason names the runtime's function responsible"


def test_observing_answers_downloads_through_every_http_library():
    """A media URL the input names is answered from the fixtures whichever library fetches it (httpx,
    httpx2, requests); any other download is a refused network attempt, never sent."""
    import httpx2
    import requests

    image = "https://example.invalid/image.png"
    named = Downloads([{"role": "user", "content": [{"kind": "image", "value": image}]}])
    with observing(named) as sent:
        download = httpx.Client().get(image)
        again = httpx2.Client().get(image)
        fetched = requests.get(image, timeout=1)
        with pytest.raises(NetworkBlocked, match=r"fetch example\.invalid:443"):
            httpx.Client().get("https://example.invalid/other.png")  # not named by the input
        with pytest.raises(NetworkBlocked, match=r"elsewhere\.invalid:80"):
            requests.get("http://elsewhere.invalid/a.png", timeout=1)
    assert (download.status_code, download.headers["content-type"]) == (200, "image/png")
    assert download.content == again.content == fetched.content == fixture("image/png")
    assert download.content.startswith(b"\x89PNG")
    assert [r.method for r in sent.requests][:3] == ["GET", "GET", "GET"]
    assert sent.statuses == []  # nothing went out


@pytest.fixture
def sse_server():
    """A local server answering every POST with two server-sent events and a GET with 404: the
    ``http://`` origin of the served body."""
    import http.server
    import threading

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["content-length"]))
            body = b"data: 1\n\n" + b"data: 2\n\n" * 4000  # more than one read: left unread
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_observing_closes_the_responses_left_open_and_answers_downloads(sse_server):
    """A stream the runtime stopped reading (LiteLLM at a stream's terminal event) is closed when the
    block ends: left to the garbage collector, its close takes the connection pool's lock, and a
    collection that runs while the next request holds that lock never returns. A media URL of the
    input is answered from the fixtures, never sent; the provider's call goes out and is kept."""
    image = "https://example.invalid/image.png"
    named = Downloads([{"role": "user", "content": [{"kind": "image", "value": image}]}])
    with httpx.Client() as own:  # as LiteLLM builds one
        with observing(named) as sent:
            response = own.send(
                own.build_request("POST", f"{sse_server}/v1/responses", json={"a": 1}), stream=True
            )
            lines = response.iter_lines()
            assert next(lines) == "data: 1"  # and no further, as LiteLLM at a terminal event
            download = own.get(image)
            assert not response.is_closed
        assert response.is_closed
        again = own.post(f"{sse_server}/v1/responses", json={"b": 2})  # the pool takes the next request
    assert again.text.startswith("data: 1")
    assert download.content == fixture("image/png")
    assert [r.method for r in sent.requests] == ["POST", "GET"]
    assert (sent.statuses, json.loads(sent.requests[0].content)) == ([200], {"a": 1})


def test_inputs_are_written_as_each_runtimes_users_write_them():
    audio = {"kind": "audio", "value": "AAAA", "mediaType": "audio/x-wav"}
    assert openai_inputs.content_part(audio) == {
        "type": "input_audio",
        "input_audio": {"data": "AAAA", "format": "wav"},
    }
    with pytest.raises(openai_inputs.UnsupportedPart):
        openai_inputs.content_part({"kind": "audio", "value": "AAAA"})
    agent = {"model": {"options": {"maxOutputTokens": 5, "topK": 3, "additionalProperties": {"user": "u"}}}}
    assert langchain_inputs.constructor_options("openai", agent) == {
        "max_tokens": 5,
        "model_kwargs": {"user": "u"},
    }
    assert langchain_inputs.constructor_options("anthropic", agent)["top_k"] == 3
    assert langchain_inputs.content_block(audio) == {
        "type": "audio",
        "base64": "AAAA",
        "mime_type": "audio/x-wav",
    }


@needs["langchain"]
def test_langchain_messages_are_langchains_own_objects():
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}
    assistant = langchain_inputs.message(
        {"role": "assistant", "content": [], "metadata": {"tool_calls": [call]}}
    )
    assert isinstance(assistant, AIMessage) and assistant.tool_calls[0]["args"] == {"x": 1}
    # an earlier Responses function_call item: a content block, as LangChain's own AIMessage of a
    # Responses call holds it (langchain_openai sends such blocks back verbatim, id and status included)
    item = {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": "{}"}
    answered = langchain_inputs.message(
        {
            "role": "assistant",
            "content": [],
            "metadata": {"tool_calls": [call], "responses_function_call": item},
        }
    )
    assert answered.content == [item] and answered.tool_calls[0]["id"] == "c1"
    tool = langchain_inputs.message(
        {"role": "tool", "content": [{"kind": "text", "value": "ok"}], "metadata": {"tool_call_id": "c1"}}
    )
    assert isinstance(tool, ToolMessage) and tool.tool_call_id == "c1" and tool.content == "ok"
    user = langchain_inputs.message({"role": "user", "content": [{"kind": "text", "value": "a"}] * 2})
    assert isinstance(user, HumanMessage) and user.content == [{"type": "text", "text": "a"}] * 2


@needs["langchain"]
def test_the_langchain_fake_refuses_what_chatopenai_refuses(run_corpus):
    from langchain_core.messages import HumanMessage
    from langchain_openai import ChatOpenAI

    from tests.fakes.langchain_chat import REFUSAL

    block = langchain_inputs.content_block({"kind": "file", "value": "https://example.com/a.pdf"})
    real = ChatOpenAI(model="gpt-4o-mini", api_key="placeholder")
    with pytest.raises(ValueError, match=REFUSAL):
        real._get_request_payload([HumanMessage(content=[block])])

    cases = "file-part or single-text-part-is-string"
    run = run_corpus(
        "--impl=tests.fakes.langchain_chat:adapter", "--api=openai.chat", "--kind=wire", "-k", cases
    )
    assert (
        run.outcomes["wire.openai.chat.single-text-part-is-string"] == "passed"
    )  # judged through the capture
    assert run.outcomes["wire.openai.chat.file-part"] == "failed"
    assert REFUSAL in run.longreprs["wire.openai.chat.file-part"]
    assert run.with_outcome("error") == set()


@needs["litellm"]
def test_the_litellm_fake_refuses_what_litellm_refuses(run_corpus):
    import litellm

    with observing(Downloads()), pytest.raises(Exception, match="Invalid Message passed in"):
        litellm.completion(
            model="gemini/gemini-2.5-flash",
            messages=[{"role": "critic", "content": "x"}],
            api_key="placeholder",
        )

    cases = "unknown-role-raises or single-text-message"
    run = run_corpus(
        "--impl=tests.fakes.litellm_module:adapter",
        "--api=gemini.generate_content",
        "--kind=wire",
        "-k",
        cases,
    )
    assert run.outcomes["wire.gemini.generate_content.unknown-role-raises"] == "passed"
    assert run.outcomes["wire.gemini.generate_content.single-text-message"] == "passed"


@needs["litellm"]
def test_litellm_over_endpoints_leaves_no_response_open(corpus):
    """LiteLLM's streams read from the case's endpoint (Anthropic's, the Responses API's, which it stops
    reading at the terminal event) leave no HTTP response open once the stream is done: none left for
    the garbage collector to close inside the connection pool's lock. Its e2e request to OpenAI is the
    one it sends api.openai.com (``stream_options``: a host it does not know gets none)."""
    from unittest import mock

    import httpx2

    from wireconf.adapters.litellm import LiteLLMAdapter
    from wireconf.cassettes.store import CassetteStore
    from wireconf.kinds.base import HarnessContext
    from wireconf.kinds.registry import KINDS
    from wireconf.kinds.sites import CaseSites
    from wireconf.sdk.replay import SdkReplay

    responses = []

    def kept(real):
        def handle(transport, request):
            response = real(transport, request)
            responses.append(response)
            return response

        return handle

    adapter = LiteLLMAdapter()
    ctx = HarnessContext(CassetteStore(REPO / "cassettes"), SdkReplay())
    chosen = ("stream.anthropic.", "stream.openai.responses.", "e2e.openai.chat.stream-parallel-tool-calls")
    cases = [c for c in corpus.cases() if c.id.startswith(chosen)]
    assert len(cases) > 20
    left = {}
    transports = (httpx.HTTPTransport, httpx2.HTTPTransport)  # LiteLLM's own, the OpenAI SDK's
    with contextlib.ExitStack() as patched:
        for transport in transports:
            patched.enter_context(
                mock.patch.object(transport, "handle_request", kept(transport.handle_request))
            )
        for case in cases:
            ctx.sites, responses[:] = CaseSites(adapter), []
            try:
                call = KINDS[case.kind].prepare(ctx, case)
                with contextlib.suppress(Exception):  # a case whose recorded response raises
                    call(adapter)
            finally:
                problems = ctx.sites.close()
                ctx.opened.clear()
            assert problems == [], (case.id, problems)
            assert responses, case.id  # sent to the endpoint
            left[case.id] = [str(r.request.url) for r in responses if not r.is_closed]
            if case.kind == "e2e":
                assert json.loads(responses[0].request.content)["stream_options"] == {"include_usage": True}
    assert {case: urls for case, urls in left.items() if urls} == {}

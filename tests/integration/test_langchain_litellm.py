"""LangChain's chat models and LiteLLM's ``completion`` through the corpus, for real (installed only in
their own environments, where tests/integration/test_runtime_envs.py runs these tests), each against its
committed baseline with no error; and fakes that refuse what the real runtimes refuse, checked against
the real runtimes."""

from __future__ import annotations

import importlib.util

import httpx
import pytest
import yaml

from tests.conftest import REPO, assert_all_ruled, assert_reasons_true
from tests.runtime_envs import in_process
from wireconf.adapter_contract import NoRequestSent
from wireconf.adapters import langchain_inputs, openai_inputs
from wireconf.adapters.http_answer import REFUSED, Answer, answering, forwarding
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


def test_the_transport_answers_both_http_libraries_and_keeps_the_body():
    import httpx2
    import requests

    served = Answer(200, [("content-type", "application/json")], b'{"ok": true}')
    image = "https://example.invalid/image.png"
    named = Downloads([{"role": "user", "content": [{"kind": "image", "value": image}]}])
    with answering(lambda _request: served, named) as sent:
        first = httpx.Client().post("https://example.invalid/v1/a", json={"a": 1})
        second = httpx2.Client().post("https://example.invalid/v1/b", json={"b": 2})
        download = httpx.Client().get(image)
        fetched = requests.get(image, timeout=1)
        with pytest.raises(NetworkBlocked, match=r"fetch example\.invalid:443"):
            httpx.Client().get("https://example.invalid/other.png")  # not named by the input
        with pytest.raises(NetworkBlocked, match=r"elsewhere\.invalid:80"):
            requests.get("http://elsewhere.invalid/a.png", timeout=1)
    assert (first.json(), second.json()) == ({"ok": True}, {"ok": True})
    assert (download.status_code, download.headers["content-type"]) == (200, "image/png")
    assert download.content == fetched.content == fixture("image/png")
    assert download.content.startswith(b"\x89PNG")
    assert [r.method for r in sent.requests][:4] == ["POST", "POST", "GET", "GET"]
    assert sent.body() == {"a": 1}  # the first call to the provider; a download is not one
    with answering(lambda _request: REFUSED) as nothing:
        pass
    with pytest.raises(NoRequestSent, match="sent no request"):
        nothing.body()


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

    with answering(lambda _request: REFUSED), pytest.raises(Exception, match="Invalid Message passed in"):
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


def test_an_e2e_call_is_forwarded_through_the_handed_sdk_clients_http():
    """What the runtime's own client sends reaches the handed client's transport byte for byte (its
    cassette, in a real case), and the answer comes back, a body read only as the runtime reads it."""
    import httpx2
    import openai

    seen = []

    def provider(request):
        seen.append((request.method, str(request.url), request.headers.get("x-runtime"), request.content))
        # what a recording client's upstream does: its own httpx call goes out for real (here to a
        # closed local port), never back into the reply
        with pytest.raises(httpx.ConnectError), httpx.Client() as upstream:
            upstream.get("http://127.0.0.1:1/")
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=b"data: 1\n\n")

    handed = openai.OpenAI(api_key="k", http_client=httpx2.Client(transport=httpx2.MockTransport(provider)))
    with answering(forwarding(handed)) as sent, httpx.Client() as own:  # own: as LiteLLM builds it
        response = own.post(
            "https://api.openai.com/v1/chat/completions", content=b'{"a": 1}', headers={"x-runtime": "r"}
        )
    assert seen == [("POST", "https://api.openai.com/v1/chat/completions", "r", b'{"a": 1}')]
    assert (response.status_code, response.text) == (200, "data: 1\n\n")
    assert sent.body() == {"a": 1}

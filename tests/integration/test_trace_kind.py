"""The trace kind: spans captured with the OpenTelemetry SDK, judged by their gen_ai.* attributes, and
every way a runtime (or the process it runs in) can get in the way reported plainly."""

from __future__ import annotations

from pathlib import Path

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import NoOpTracerProvider

from tests.conftest import CASES, small_corpus
from wireconf.adapter_contract import APIS
from wireconf.sdk.span_capture import SDK_SCOPES, TracingUnavailable, attach, snapshot

RULES = """\
rules:
  - id: 7.1.8/execute-span
    level: MUST
    basis: text
    source: {seed: s7.txt, section: 7.1.8}
    statement: execute emits a span.
"""


def trace_ids(corpus, api: str | None = None) -> set[str]:
    return {c.id for c in corpus.cases() if c.kind == "trace" and (api is None or c.api == api)}


def test_trace_cases_cover_every_api_and_pass_on_the_reference(corpus, run_corpus):
    run = run_corpus("--kind=trace")
    ids = trace_ids(corpus)
    assert {c.api for c in corpus.cases() if c.kind == "trace"} == set(APIS)
    assert run.outcomes == dict.fromkeys(ids, "passed")


def test_deviating_attributes_fail_with_a_diff_of_the_gen_ai_attributes(run_corpus):
    run = run_corpus(
        "--impl=tests.fakes.trace_misbehaving:deprecated_names", "-k", "trace.openai.chat.recorded-options"
    )
    text = run.longreprs["trace.openai.chat.recorded-options"]
    assert "expectation at " in text and "cases/trace/openai.chat/execute.yaml:" in text
    assert (
        "the spans carrying gen_ai.* attributes differ from the expectation "
        "(expected 1, the call finished 1):" in text
    )
    assert "$[0]['gen_ai.provider.name']: missing key (expected \"openai\")" in text
    assert "$[0]['gen_ai.system']: unexpected key (got \"openai\")" in text
    assert "$[0]['gen_ai.request.max_completion_tokens']: unexpected key (got 500)" in text
    assert "$[0]['gen_ai.request.max_tokens']: missing key (expected 500)" in text
    assert "$[0]['gen_ai.usage.input_tokens']: missing key (expected 15)" in text
    assert "$[0]['gen_ai.response.finish_reasons']: missing key (expected [\"stop\"])" in text
    diff = text.split("differ from the expectation")[1].split("spans the call finished")[0]
    assert "server.address" not in diff  # not gen_ai.*: ignored, only counted in the listing
    assert "1 other attribute(s)" in text
    assert "gen_ai.request.seed" not in diff  # it matches


def test_a_missing_process_span_fails_for_process_and_process_async(corpus, run_corpus):
    run = run_corpus(
        "--impl=tests.fakes.trace_misbehaving:no_process_span", "-k", "process-span or process-async-span"
    )
    expected = {i for i in trace_ids(corpus, "openai.chat") if "process" in i}
    assert expected and run.with_outcome("failed") == expected
    text = run.longreprs["trace.openai.chat.process-async-span"]
    assert (
        "expected 1 span(s) without gen_ai.* attributes (e.g. §8's process span); the call finished 0" in text
    )
    assert "the call finished no span" in text


def test_an_adapter_without_trace_capability_is_skipped_with_the_reason(corpus, run_corpus):
    run = run_corpus("--impl=tests.fakes.trace_misbehaving:untraced", "--kind=trace", "-rs")
    assert run.with_outcome("unsupported") == trace_ids(corpus)
    assert "trace:openai.chat not supported by untraced" in run.longreprs["trace.openai.chat.execute-span"]


def test_a_call_the_adapter_lacks_is_unsupported_naming_it(corpus, run_corpus):
    run = run_corpus("--impl=tests.fakes.trace_misbehaving:traced_without_process_async", "--kind=trace")
    chat = trace_ids(corpus, "openai.chat")
    asynchronous = {i for i in chat if "process-async" in i}
    assert run.with_outcome("passed") == {i for i in chat if "process-span" in i} - asynchronous
    assert run.with_outcome("unsupported") == trace_ids(corpus) - run.with_outcome("passed")
    text = run.longreprs["trace.openai.chat.process-async-span"]
    assert (
        "trace:openai.chat not supported by traced-without-process-async for this case: "
        "the adapter has no process_async(), the call traced"
    ) in text
    assert (
        "trace:openai.chat not supported by traced-without-process-async for this case: "
        "the traced execute call needs e2e:openai.chat, not declared"
    ) in run.longreprs["trace.openai.chat.execute-span"]


def test_an_adapter_that_raises_fails_with_its_traceback(run_corpus):
    run = run_corpus("--impl=tests.fakes.trace_misbehaving:crashes", "-k", "trace.openai.chat.process-span")
    assert run.outcomes == {"trace.openai.chat.process-span": "failed"}
    text = run.longreprs["trace.openai.chat.process-span"]
    assert "the process call raised builtins.RuntimeError: processor exploded on purpose" in text
    assert "traceback (adapter frames):" in text and "tests/fakes/trace_misbehaving.py" in text
    assert "spans the call finished" not in text  # its span is there: only the exception is reported


# --- the tracer provider ------------------------------------------------------------------------------


def test_attach_adds_a_processor_beside_the_users_own():
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    provider = TracerProvider()
    users = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(users))
    ours = attach(provider)
    with provider.get_tracer("t").start_as_current_span("s", attributes={"gen_ai.x": (1, 2), "y": 1}):
        pass
    assert len(users.get_finished_spans()) == 1
    [span] = ours.get_finished_spans()
    captured = snapshot(span)
    assert (captured.name, captured.gen_ai, captured.other_attributes) == ("s", {"gen_ai.x": [1, 2]}, ["y"])
    assert not captured.from_sdk_client and "com.anthropic.sdk.python" in SDK_SCOPES


def test_attach_refuses_a_provider_that_takes_no_processor_naming_it():
    with pytest.raises(
        TracingUnavailable, match=r"opentelemetry\.trace\.NoOpTracerProvider, not the OpenTelemetry SDK"
    ):
        attach(NoOpTracerProvider())


USER_PROVIDER = """\
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

USER = InMemorySpanExporter()
{install}


def pytest_unconfigure(config):
    print(f"the user's exporter saw {{len(USER.get_finished_spans())}} span(s)")
"""


def _run_with_provider(pytester: pytest.Pytester, install: str) -> pytest.RunResult:
    pytester.makepyfile(userprovider=USER_PROVIDER.format(install=install))
    target = CASES / "trace" / "openai.chat" / "process.yaml"
    # the thread runner: the user's in-memory exporter is read by this pytest process at its end, and
    # the process runner's spans would stay in the runner process's copy of it
    args = ("-p", "userprovider", "-p", "no:cacheprovider", "--case-runner=thread", "-s", str(target))
    return pytester.runpytest_subprocess(*args)


def test_a_provider_the_user_set_keeps_working_and_is_observed(pytester):
    install = "provider = TracerProvider()\nprovider.add_span_processor(SimpleSpanProcessor(USER))\n"
    result = _run_with_provider(pytester, install + "trace.set_tracer_provider(provider)")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*the user's exporter saw 2 span(s)*"])


def test_a_provider_that_is_not_the_sdks_makes_each_trace_case_an_error_that_says_why(pytester):
    result = _run_with_provider(pytester, "trace.set_tracer_provider(trace.NoOpTracerProvider())")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(
        [
            "*cannot prepare the case's input: cannot capture spans: the global OpenTelemetry tracer "
            "provider is opentelemetry.trace.NoOpTracerProvider, not the OpenTelemetry SDK's TracerProvider*"
        ]
    )


# --- bad input ----------------------------------------------------------------------------------------


def _corpus(pytester: pytest.Pytester, case: str) -> Path:
    return small_corpus(pytester.path / "corpus", RULES, "trace.yaml", case)


def test_a_missing_cassette_is_an_error_naming_the_case(pytester, run_corpus):
    root = _corpus(
        pytester,
        """\
        cases:
          - id: trace.openai.chat.nothing-recorded
            kind: trace
            api: openai.chat
            rules: [7.1.8/execute-span]
            call: execute
            cassette: openai/never-recorded
            agent: {model: {id: m}}
            expect: [{attributes: {gen_ai.operation.name: chat}}]
        """,
    )
    run = run_corpus(f"--cassettes={pytester.path / 'cassettes'}", target=root)
    assert run.outcomes == {"trace.openai.chat.nothing-recorded": "error"}
    text = run.longreprs["trace.openai.chat.nothing-recorded"]
    assert "case trace.openai.chat.nothing-recorded" in text
    assert "cassette openai/never-recorded not found:" in text


def test_an_unknown_call_or_a_non_gen_ai_attribute_is_a_corpus_problem_with_its_line(pytester, run_corpus):
    root = _corpus(
        pytester,
        """\
        cases:
          - id: trace.openai.chat.unknown-call
            kind: trace
            api: openai.chat
            rules: [7.1.8/execute-span]
            call: stream
            agent: {model: {id: m}}
            response: {cassette: openai/x}
            expect: [{attributes: {}}]
          - id: trace.openai.chat.other-attribute
            kind: trace
            api: openai.chat
            rules: [7.1.8/execute-span]
            call: process
            agent: {model: {id: m}}
            response: {cassette: openai/x}
            expect: [{attributes: {server.address: x}}]
        """,
    )
    run = run_corpus(target=root)
    problems = "\n".join(run.problems.values())
    assert (
        "trace.yaml:6: trace.openai.chat.unknown-call: invalid case: "
        "call: Input should be 'execute', 'process' or 'process_async'"
    ) in problems
    assert "trace.yaml:17: trace.openai.chat.other-attribute" in problems
    assert "only gen_ai.* attributes are judged; remove server.address" in problems


def test_bless_refuses_a_trace_case_rather_than_writing_a_null_expectation():
    from wireconf.maintenance.bless import BlessError, bless

    with pytest.raises(
        BlessError, match=r"trace.openai.chat.process-span: not blessed, trace cases are written"
    ):
        bless(CASES, ["trace.openai.chat.process-span"])

"""The adapter contract's optional methods: process_async (awaited beside process in every process
case, each variant judged and named) and set_tool_registry (custom tools of wire cases)."""

from __future__ import annotations

from tests.fakes import async_returns_raw_content

ASYNC_FILE = "cases/process/openai.chat/process-async.yaml"


def _process_cases(corpus):
    return {c.id for c in corpus.cases() if c.kind == "process"}


def test_a_deviating_async_variant_fails_and_is_named(corpus, run_corpus):
    run = run_corpus("--impl=tests.fakes.async_returns_raw_content:adapter")
    failed = run.with_outcome("failed")
    assert failed <= _process_cases(corpus)  # wire and stream cases never reach process_async
    assert run.with_outcome("error") == set()
    citing = {c.id for c in corpus.cases_citing(async_returns_raw_content.BROKEN_RULE)}
    # the sync processor returns the same raw content for plain text, nowhere else in these cases
    assert citing - failed == {
        "process.openai.chat.async-plain-text",
        "process.openai.chat.async-invalid-json-falls-back",
    }

    text = run.longreprs["process.openai.chat.async-structured-output-parsed"]
    assert "process conforms; process_async deviates:" in text
    assert "process_async: the result differs from the expectation:" in text
    assert ASYNC_FILE in text
    refusal = run.longreprs["process.openai.chat.async-refusal-text"]
    assert "process_async: the result differs from the expectation:" in refusal


def test_a_broken_sync_processor_is_named_beside_a_conforming_async_one(run_corpus):
    run = run_corpus("--impl=tests.fakes.raises:adapter", "-k", "async-tool-call")
    text = run.longreprs["process.openai.chat.async-tool-call"]
    assert "process: expected a result, but the adapter raised builtins.RuntimeError" in text
    assert "process_async:" not in text  # the async variant (the reference's) conforms


def test_a_process_async_that_is_not_a_coroutine_is_an_error(corpus, run_corpus):
    run = run_corpus("--impl=tests.fakes.async_not_awaitable:adapter")
    # a plain function that raises (an empty response) raised, as the case expects; every other one returned
    returning = {c.id for c in corpus.cases() if c.kind == "process" and c.model.expect_error is None}
    assert run.with_outcome("error") == returning
    assert (
        "declare it `async def process_async(api, agent, response)`"
        in run.longreprs["process.openai.chat.real-plain-text"]
    )


def test_without_optional_methods_only_registry_cases_lack_a_verdict(corpus, run_corpus):
    run = run_corpus("--impl=tests.fakes.without_optional_methods:adapter")
    with_registry = {c.id for c in corpus.cases() if getattr(c.model, "registry", None)}
    assert with_registry
    declared = {c.id for c in corpus.cases() if c.kind in ("wire", "process", "stream")}
    assert run.with_outcome("error") == with_registry
    assert run.with_outcome("passed") == declared - with_registry
    assert run.with_outcome("unsupported") == {c.id for c in corpus.cases()} - declared
    text = run.longreprs["wire.openai.chat.custom-tool-from-registry"]
    assert "declares a tool registry but the adapter has no set_tool_registry(entries)" in text


MINI_RULES = """\
rules:
  - id: 7.1.3/custom-tool-from-registry
    level: MUST
    basis: pseudocode
    source: {seed: s7.txt, section: 7.1.3}
    statement: Custom tools come from the registry.
  - id: 7.1.3/unknown-tool-kind-raises
    level: MUST
    basis: pseudocode
    source: {seed: s7.txt, section: 7.1.3}
    statement: Unknown kinds raise.
"""

REGISTRY_CASES = """\
cases:
  - id: wire.openai.chat.a-registered
    kind: wire
    api: openai.chat
    rules: [7.1.3/custom-tool-from-registry]
    registry: [{name: t, parameters: {type: object, properties: {}}}]
    agent: {model: {id: m}, tools: [{kind: custom_kind, name: t}]}
    expect:
      model: m
      messages: []
      tools: [{type: function, function: {name: t, parameters: {type: object, properties: {}}}}]
  - id: wire.openai.chat.b-not-registered
    kind: wire
    api: openai.chat
    rules: [7.1.3/unknown-tool-kind-raises]
    agent: {model: {id: m}, tools: [{kind: custom_kind, name: t}]}
    expect_error: {type: ValueError, match: "registry has no entry named 't'"}
"""


def test_the_registry_is_replaced_before_every_wire_case(pytester, run_corpus):
    """A registry entry of one case must not leak into the next: the second case declares none."""
    root = pytester.path / "corpus"
    root.mkdir()
    (root / "rules.yaml").write_text(MINI_RULES)
    (root / "registry.yaml").write_text(REGISTRY_CASES)
    run = run_corpus(target=root)
    assert run.outcomes == {
        "wire.openai.chat.a-registered": "passed",
        "wire.openai.chat.b-not-registered": "passed",
    }


class _Async:
    """An adapter whose ``process_async`` is ``method``."""

    def __init__(self, method):
        self.process_async = method


def test_what_one_process_async_leaves_running_is_cancelled_before_the_next_case():
    """The event loop is reused from case to case (a new one per case costs more than most cases), so a
    task one case leaves behind must not live on into the next."""
    import asyncio

    from wireconf.kinds.process import PROCESS_ASYNC

    seen: list[str] = []

    async def leaves_a_task(api, agent, response):
        async def later():
            try:
                await asyncio.sleep(30)
                seen.append("ran into the next case")
            except asyncio.CancelledError:
                seen.append("cancelled")
                raise

        asyncio.get_running_loop().create_task(later())
        await asyncio.sleep(0)
        return response

    async def next_case(api, agent, response):
        await asyncio.sleep(0)
        return [task.get_coro().__name__ for task in asyncio.all_tasks()]

    first = PROCESS_ASYNC.invoke(_Async(leaves_a_task), "openai.chat", {}, "first")
    assert first.value == "first" and seen == ["cancelled"]
    second = PROCESS_ASYNC.invoke(_Async(next_case), "openai.chat", {}, "second")
    assert second.value == ["_settle"]  # only the case's own coroutine runs on the loop


def test_a_callback_one_process_async_leaves_scheduled_never_runs_in_the_next_case():
    import asyncio

    from wireconf.kinds.process import PROCESS_ASYNC

    ran: list[str] = []

    async def schedules(api, agent, response):
        asyncio.get_running_loop().call_later(0.05, ran.append, "late callback")
        return response

    async def waits(api, agent, response):
        await asyncio.sleep(0.2)
        return response

    assert PROCESS_ASYNC.invoke(_Async(schedules), "openai.chat", {}, "first").value == "first"
    assert PROCESS_ASYNC.invoke(_Async(waits), "openai.chat", {}, "second").value == "second"
    assert ran == []

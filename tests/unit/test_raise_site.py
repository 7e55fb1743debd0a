"""Whose code raised an adapter call's exception (``wireconf.core.raise_site``): the adapter's own code is a
bug of the adapter, an error naming it; the runtime's is judged as the runtime's outcome (issue 32)."""

from __future__ import annotations

import json
import sys
import types

import httpx
import pytest

from wireconf.adapter_contract import NoRequestSent, RuntimeOutcome
from wireconf.core.error_categories import categorised
from wireconf.core.raise_site import Ownership, adapter_raised

HERE = __name__  # this module stands for the adapter's own code

RUNTIME_SOURCE = """
def build(messages, transport=None):
    if transport is not None:
        return transport()  # the runtime calls back into the adapter (an HTTP transport)
    if not messages:
        raise ValueError("the runtime refuses an empty conversation")
    return {"messages": messages}
"""


@pytest.fixture(scope="module")
def runtime():
    """A runtime of its own package (``some_runtime``), as a third party's would be."""
    module = types.ModuleType("some_runtime")
    exec(compile(RUNTIME_SOURCE, "some_runtime.py", "exec"), module.__dict__)
    sys.modules["some_runtime"] = module
    yield module
    del sys.modules["some_runtime"]


def _raised(call) -> BaseException:
    try:
        call()
    except Exception as exc:
        return exc
    raise AssertionError("nothing raised")


def _consumed_body_transport():
    """The adapter's transport reads a response body a second time: httpx raises, inside httpx."""
    response = httpx.Response(200, stream=httpx.ByteStream(b"{}"))
    response.read()
    response.stream = httpx.ByteStream(b"")
    list(response.iter_raw())
    return list(response.iter_raw())


OWN = Ownership((HERE,))
DECLARED = Ownership((HERE,), ("some_runtime",))


def test_the_runtimes_exception_is_the_runtimes(runtime):
    exc = _raised(lambda: runtime.build([]))
    assert adapter_raised(exc, OWN) == "" and adapter_raised(exc, DECLARED) == ""


def test_an_exception_of_the_adapters_own_code_names_where(runtime):
    exc = _raised(lambda: {}["no such key"])
    assert adapter_raised(exc, OWN).startswith(f"{HERE}:")
    # through the standard library (json), still the adapter's: the stdlib raises for its caller
    exc = _raised(lambda: json.loads("{not json"))
    assert adapter_raised(exc, OWN).startswith(f"{HERE}:")


def test_a_transport_bug_under_the_runtime_is_the_adapters_once_it_names_its_runtime(runtime):
    exc = _raised(lambda: runtime.build(["hi"], transport=_consumed_body_transport))
    assert isinstance(exc, httpx.StreamConsumed)
    assert "_consumed_body_transport" in adapter_raised(exc, DECLARED)
    # without runtime_packages, every package but the adapter's is the runtime's: httpx too
    assert adapter_raised(exc, OWN) == ""


def test_what_the_adapter_raises_on_purpose_is_never_its_bug(runtime):
    assert adapter_raised(_raised(lambda: _raise(NoRequestSent("none"))), OWN, (RuntimeOutcome,)) == ""
    declared = _raised(lambda: _raise(categorised(ValueError("refused"), "invalid-input")))
    assert adapter_raised(declared, OWN) == ""
    # a translation of the runtime's exception (raise ... from it) is judged by its cause
    translated = _raised(lambda: _translate(runtime))
    assert adapter_raised(translated, OWN) == ""


def test_ownership_defaults_to_the_adapters_class_module_and_reads_declarations():
    class Plain:
        pass

    class Declared:
        adapter_modules = ("mypkg.conformance",)
        runtime_packages = "myruntime"

    assert Ownership.of(Plain()) == Ownership((HERE,), None)
    assert Ownership.of(Declared()) == Ownership(("mypkg.conformance",), ("myruntime",))
    assert Ownership.of(sys.modules[HERE]) == Ownership((HERE,), None)  # a module that is the adapter


def _raise(exc: BaseException) -> None:
    raise exc


def _translate(runtime) -> None:
    try:
        runtime.build([])
    except ValueError as exc:
        raise RuntimeError("the runtime refused") from exc


HARNESS_SOURCE = """
def invoke(method, api, agent, response):
    return method(api, agent, response)
"""


def test_a_call_the_adapters_method_cannot_take_is_the_adapters(runtime):
    """Raised by wireconf's call itself (the method lacks an argument the contract passes, as an adapter
    whose ``process_stream`` wants ``endpoint`` served without one): the method never ran, so neither
    did the runtime: the adapter's, at the call."""
    harness = types.ModuleType("wireconf.kinds._calls_for_a_test")
    exec(compile(HARNESS_SOURCE, "calls.py", "exec"), harness.__dict__)

    def process(api, agent, response, *, endpoint):  # the adapter's method, wanting one more argument
        return runtime.build(agent)

    exc = _raised(lambda: harness.invoke(process, "openai.chat", [], None))
    assert isinstance(exc, TypeError)
    at = adapter_raised(exc, OWN)
    assert at.startswith("wireconf.kinds._calls_for_a_test:") and "does not take" in at
    # once inside the method, what the runtime raises stays the runtime's
    exc = _raised(lambda: harness.invoke(lambda api, agent, response: runtime.build(agent), "a", [], None))
    assert isinstance(exc, ValueError) and adapter_raised(exc, OWN) == ""

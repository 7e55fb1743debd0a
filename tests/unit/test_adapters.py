"""Resolving --impl and checking an adapter against the contract; the per-case timer."""

from __future__ import annotations

import threading
import time
import types

import pytest

from wireconf.pytest_plugin.impl_loader import load_impl
from wireconf.pytest_plugin.timeout import CaseTimeout, TimedRunner
from wireconf.runtimes.python_impl import ImplError, check_adapter


def test_entry_point_reference():
    impl = load_impl("reference")
    assert impl.name == "reference"
    assert "wire:openai.chat" in impl.capabilities
    assert impl.origin.startswith("entry point reference = wireconf.reference_impl.adapter:ReferenceAdapter")


def test_module_attribute_class_and_factory():
    assert load_impl("wireconf.reference_impl.adapter:ReferenceAdapter").name == "reference"
    assert load_impl("tests.fakes.sends_max_tokens:adapter").name == "sends-max-tokens"
    assert load_impl("tests.fakes.sends_max_tokens:Adapter").name == "sends-max-tokens"


def test_a_module_can_be_the_adapter():
    module = types.ModuleType("mod_adapter")
    module.name, module.version = "mod", "1"
    module.capabilities = lambda: {"wire:openai.chat"}
    module.build_request = lambda api, agent, messages: {}
    assert check_adapter(module, "mod_adapter", "module").capabilities == {"wire:openai.chat"}


class _Base:
    name, version = "x", "1"


@pytest.mark.parametrize(
    ("caps", "message"),
    [
        ({"wire"}, "is not of the form '<kind>:<api>'"),
        ({"wired:openai.chat"}, "unknown kind 'wired'"),
        ({"wire:openai.chatt"}, "unknown api 'openai.chatt'"),
        ({"process:openai.chat"}, "declares 'process:openai.chat' but has no method process()"),
        ("wire:openai.chat", "must return a set of strings"),
    ],
)
def test_contract_violations_are_named(caps, message):
    adapter = type("A", (_Base,), {"capabilities": lambda self: caps})()
    with pytest.raises(ImplError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_adapter(adapter, "spec", "origin")


def test_exec_is_not_yet_available():
    with pytest.raises(ImplError, match="exec:"):
        load_impl("exec:node runtime.js")


def test_timer_returns_values_and_reraises():
    runner = TimedRunner()
    assert runner.run(lambda: 42, 1.0) == 42
    with pytest.raises(KeyError):
        runner.run(lambda: {}["missing"], 1.0)


def test_timer_abandons_a_hung_call_and_keeps_working():
    runner, release = TimedRunner(), threading.Event()
    with pytest.raises(CaseTimeout, match=r"within 0\.05 s"):
        runner.run(lambda: release.wait(10), 0.05)
    assert runner.abandoned == 1
    started = time.perf_counter()
    assert runner.run(lambda: "next", 1.0) == "next"
    assert time.perf_counter() - started < 1.0
    release.set()


def test_timer_zero_disables_the_limit():
    assert TimedRunner().run(lambda: threading.current_thread().name, 0) == threading.current_thread().name

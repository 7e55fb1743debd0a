"""One error hierarchy: every error the harness raises says where it applies and what to do, and is a
``WireconfError`` (wireconf/core/errors.py)."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil

import pytest

import wireconf
from tests.conftest import REPO
from wireconf.adapter_contract import Inexpressible, RuntimeOutcome
from wireconf.cassettes.importer import CassetteImportError, source_of
from wireconf.core.case_abort import CaseAborted
from wireconf.core.errors import Verdict, WireconfError
from wireconf.kinds.wire import NoRequestCaptured
from wireconf.pytest_plugin.impl_loader import load_impl
from wireconf.runtimes.python_impl import ImplError

CONTROL_FLOW = {"RequestCaptured", "Silent"}
"""Exceptions used to leave a call early, never shown to anyone (prompty's capture of its SDK call; an
exec runtime's pipe that did not answer in time, which the supervisor turns into the case's timeout)."""


def harness_exceptions() -> list[type[BaseException]]:
    found = []
    for info in pkgutil.walk_packages(wireconf.__path__, "wireconf."):
        if info.name.startswith("wireconf._corpus"):
            continue
        module = importlib.import_module(info.name)
        for name, cls in vars(module).items():
            if (
                inspect.isclass(cls)
                and issubclass(cls, BaseException)
                and cls.__module__ == module.__name__
                and not name.startswith("_")
                and name not in CONTROL_FLOW
            ):
                found.append(cls)
    return found


def test_every_error_of_the_harness_is_a_wireconf_error():
    classes = harness_exceptions()
    assert len(classes) > 20  # the walk found the harness's errors
    # an adapter's outcomes: what its runtime did (RuntimeOutcome), an input it cannot say (Inexpressible);
    # what the wire kind saw a runtime given an endpoint do (it sent nothing there): the kinds sit below
    # the adapter contract, so that outcome is a class of their own
    roots = (WireconfError, CaseAborted, Verdict, RuntimeOutcome, Inexpressible, NoRequestCaptured)
    assert [c.__qualname__ for c in classes if not issubclass(c, roots)] == []


def test_what_an_adapter_saw_the_runtime_do_is_neither_an_error_nor_a_verdict():
    """A ``RuntimeOutcome`` is raised in the runtime's place and judged as its exception: a root of its
    own, under neither ``WireconfError`` (a usage error) nor ``Verdict``."""
    outcomes = [c for c in harness_exceptions() if issubclass(c, RuntimeOutcome)]
    assert {c.__qualname__ for c in outcomes} == {
        "RuntimeOutcome",
        "NoRequestSent",
        "RequestNotSendable",
        "ToolCalled",
        "NoResult",
    }
    assert [c for c in outcomes if issubclass(c, (WireconfError, Verdict, CaseAborted))] == []
    # an input with no form in the runtime is neither either: the case is unsupported
    inexpressible = [c for c in harness_exceptions() if issubclass(c, Inexpressible)]
    assert [c for c in inexpressible if issubclass(c, (WireconfError, Verdict, RuntimeOutcome))] == []


def test_a_verdict_is_not_an_error():
    """``CaseFailed`` judges the runtime: a base of its own, never a ``WireconfError`` (a usage error)."""
    from wireconf.pytest_plugin.items import CaseFailed

    assert issubclass(CaseFailed, Verdict) and not issubclass(CaseFailed, WireconfError)
    assert [c.__qualname__ for c in harness_exceptions() if issubclass(c, Verdict)] == [
        "Verdict",
        "CaseFailed",
    ]


def test_a_case_abort_is_not_an_exception_a_runtime_can_swallow():
    """The one deliberate exception to the hierarchy: a runtime's own ``except Exception`` must not catch
    the harness's decision to stop a case (time limit, runner ended), so aborts derive from
    BaseException and are never judged."""
    aborts = [c for c in harness_exceptions() if issubclass(c, CaseAborted)]
    assert {c.__name__ for c in aborts} >= {"CaseAborted", "CaseTimeout", "RunnerEnded", "RuntimeCrashed"}
    assert not any(issubclass(c, Exception) for c in aborts)


def test_an_error_says_where_and_what_to_do():
    error = WireconfError("no such rule", path="cases/x.yaml", line=3, case="wire.a.x", hint="fix it")
    assert str(error) == "cases/x.yaml:3 (case wire.a.x): no such rule\n  hint: fix it"
    assert error.where == "cases/x.yaml:3 (case wire.a.x)"
    assert (error.message, error.hint) == ("no such rule", "fix it")
    assert str(WireconfError("plain")) == "plain"  # without where or hint: the message, as written
    rewritten = WireconfError("inner")
    rewritten.args = ("outer: inner",)  # a caller that prefixes the message (NotData's variant label)
    assert str(rewritten) == "outer: inner"


def test_the_importer_names_the_file_and_the_way_out(tmp_path):
    outside = tmp_path / "cassette.yaml"
    outside.write_text("interactions: []\n")
    with pytest.raises(CassetteImportError) as raised:
        source_of(outside)
    assert raised.value.at.path == outside
    assert str(raised.value).startswith(f"{outside}: cannot tell where this cassette was published")
    assert raised.value.hint == "name it with --source-repo (and --source-commit)"


def test_an_unknown_impl_says_what_impl_takes():
    with pytest.raises(ImplError) as raised:
        load_impl("no_such_module_xyz")
    assert "cannot import module 'no_such_module_xyz'" in raised.value.message
    assert "module:attribute" in (raised.value.hint or "") and "reference" in (raised.value.hint or "")


def test_the_command_line_prints_an_error_and_exits_2(capsys, tmp_path):
    from wireconf.cli import main

    assert main(["lint", str(tmp_path / "nowhere")]) == 2
    assert "wireconf lint: no corpus at" in capsys.readouterr().err


def test_a_broken_adapter_is_blamed_on_its_file(tmp_path, monkeypatch):
    (tmp_path / "half_adapter.py").write_text("class Adapter:\n    name = 'half'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ImplError) as raised:
        load_impl("half_adapter:Adapter")
    assert raised.value.at.path == str(tmp_path / "half_adapter.py")
    assert "lacks version, capabilities" in raised.value.message
    assert "docs/adapters.md" in (raised.value.hint or "")


def test_a_file_that_is_no_cassette_is_named_with_the_formats_taken(tmp_path):
    from wireconf.cassettes.importer import Source, vcr_cassette

    path = tmp_path / "notes.yaml"
    path.write_text("- just\n- a list\n")
    with pytest.raises(CassetteImportError) as raised:
        vcr_cassette(path, Source("https://example.com/r", "notes.yaml", None))
    assert raised.value.at.path == str(path)
    assert raised.value.message == "a cassette is a mapping"
    assert "vcrpy" in (raised.value.hint or "") and "Ruby VCR" in (raised.value.hint or "")


GUIDED = (
    "wireconf/pytest_plugin/impl_loader.py",
    "wireconf/runtimes/python_impl.py",
    "wireconf/cassettes/importer.py",
    "wireconf/cassettes/vcr_import.py",
)


@pytest.mark.parametrize("module", GUIDED)
def test_every_error_of_the_importer_and_the_impl_loader_says_what_to_do(module):
    """What a user meets first (``--impl``, ``wireconf import``): each error raised there has a hint."""
    tree = ast.parse((REPO / module).read_text(encoding="utf-8"))
    raised = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Raise)
        and isinstance(node.exc, ast.Call)
        and isinstance(node.exc.func, ast.Name)
    ]
    assert raised
    unguided = [n.lineno for n in raised if not {k.arg for k in n.exc.keywords} & {"hint", None}]
    assert unguided == []

"""Every error a user can meet is a ``WireconfError`` raised where the problem is found: no built-in
exception (``ValueError``, ``RuntimeError``, ``NotImplementedError``, …) is raised with a message
anywhere in the harness (``wireconf`` less its reference, a runtime of its own), read from the source.

A pydantic validator is the one place a built-in is right: pydantic turns its ``ValueError`` into the
validation error the loader reports with file and line. A validator is a function decorated with
``*validator`` (``field_validator``, ``model_validator``) or handed to ``AfterValidator`` and its
siblings in its module. A bare re-raise, an exception class that derives from both (``class
ConditionError(WireconfError, ValueError)``, so that a validator may call it) and a built-in raised
with no message (``raise AttributeError(name)`` in a ``__getattr__``, ``OSError(errno, strerror)``
mirroring a system call) are not flagged. An adapter that sees the runtime it wraps do something that
is not a request to judge (send none, build one that is not JSON) raises a ``RuntimeOutcome``
(``wireconf.adapter_contract``) in the runtime's place: a class of its own, not a built-in.
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

import pytest

from tests.conftest import REPO
from wireconf.adapter_contract import NoRequestSent, RequestNotSendable, RuntimeOutcome, ToolCalled
from wireconf.core.error_categories import categories_of
from wireconf.core.errors import WireconfError

BUILTIN_EXCEPTIONS = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
)


def _is_message(node: ast.expr) -> bool:
    """A string written in the source: a literal, an f-string, or either joined to something."""
    if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return True
    return isinstance(node, ast.BinOp) and (_is_message(node.left) or _is_message(node.right))


def _validators(tree: ast.Module) -> set[str]:
    """The names of the module's functions that pydantic calls as validators."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                if name.endswith("validator"):
                    names.add(node.name)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "").endswith("Validator"):
            names |= {arg.id for arg in node.args if isinstance(arg, ast.Name)}
    return names


def builtin_raises(source: str, filename: str) -> list[str]:
    """``file:line: raise Name(...)`` for each built-in raised with a message outside a validator."""
    tree = ast.parse(source, filename)
    validators = _validators(tree)
    found = []

    def visit(node: ast.AST, function: str | None) -> None:
        for child in ast.iter_child_nodes(node):
            inside = child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else function
            if isinstance(child, ast.Raise) and isinstance(child.exc, ast.Call):
                name = getattr(child.exc.func, "id", None)
                if (
                    name in BUILTIN_EXCEPTIONS
                    and any(_is_message(arg) for arg in child.exc.args)
                    and function not in validators
                ):
                    found.append(f"{filename}:{child.lineno}: raise {name}(...)")
            visit(child, inside)

    visit(tree, None)
    return found


def harness_files() -> list[Path]:
    return [
        path
        for path in sorted((REPO / "wireconf").rglob("*.py"))
        if "reference_impl" not in path.parts and "_corpus" not in path.parts
    ]


def test_no_builtin_exception_is_raised_with_a_message_outside_a_validator():
    found = {}
    for path in harness_files():
        name = path.relative_to(REPO).as_posix()
        lines = builtin_raises(path.read_text(encoding="utf-8"), name)
        if lines:
            found[name] = [line.rpartition("raise ")[2].removesuffix("(...)") for line in lines]
    assert found == {}


@pytest.mark.parametrize("outcome", [NoRequestSent, RequestNotSendable, ToolCalled])
def test_what_an_adapter_saw_the_runtime_do_is_an_uncategorised_outcome_never_an_error(outcome):
    """An adapter raises these in the runtime's place (prompty built a request that is not JSON,
    LangChain sent none): judged as the runtime's exception, so never a ``WireconfError`` (a verdict
    would become an error), and standing for none of the spec's errors, so that a case expecting
    ``invalid-input`` cannot pass on what the adapter saw (a ``TypeError`` would map to it)."""
    exc = outcome("what the runtime did")
    assert isinstance(exc, RuntimeOutcome)
    assert not isinstance(exc, WireconfError)
    assert categories_of(exc).categories == frozenset()
    assert categories_of(exc).describe() == "uncategorised"
    assert categories_of(TypeError("a built-in")).categories == {"invalid-input"}  # what it would have meant


def test_the_check_flags_a_builtin_with_a_message_and_spares_validators():
    source = (
        "from pydantic import AfterValidator, field_validator\n"
        "def load(x):\n"
        "    raise ValueError(f'bad {x}')\n"  # flagged
        "def check(v):\n"
        "    raise ValueError('no')\n"  # a validator: spared
        "T = AfterValidator(check)\n"
        "class M:\n"
        "    @field_validator('a')\n"
        "    def a(cls, v):\n"
        "        raise ValueError('bad a')\n"  # spared
        "def get(name):\n"
        "    raise AttributeError(name)\n"  # no message: spared
        "def run():\n"
        "    raise RuntimeError('failed: ' + str(1))\n"  # flagged
    )
    assert builtin_raises(source, "m.py") == [
        "m.py:3: raise ValueError(...)",
        "m.py:14: raise RuntimeError(...)",
    ]

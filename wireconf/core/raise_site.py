"""Whose code raised an exception an adapter call ended with: the adapter's own, or the runtime's.

An adapter call that raises reports either what the runtime did (its refusal, its crash: judged as the
runtime's outcome, against the case's expectation) or a bug of the adapter itself (its transport
re-reading a body already consumed, a ``KeyError`` in its mapping of the case's input): that is no
claim about the runtime, so the case is an error naming the adapter, never a failure charged to a rule
or to the corpus. The traceback tells them apart. From the frame that raised, outward:

- frames of the standard library, of wireconf's harness (``wireconf`` outside the reference and the
  adapter's modules) and, when the adapter names its runtime's packages (``runtime_packages``), of any
  library that is neither (an HTTP client, a provider SDK the adapter calls itself) are passed over:
  they raise for whoever called them;
- the first frame left decides: one of the adapter's modules (``adapter_modules``: by default the module
  that defines the adapter's class) makes the exception the adapter's; any other, the runtime's.

A ``TypeError`` raised in a frame of wireconf's harness was raised by the call of the adapter's method
itself (its signature does not take what the contract passes: an argument missing, one
unexpected): the adapter's too, never the runtime's.

An exception raised with an explicit cause (``raise X from exc``) is a translation: its cause decides. An
exception an adapter raises on purpose is never its bug: one with a declared error category
(``wireconf.core.error_categories.categorised``), and the classes the caller exempts (the adapter contract's
``RuntimeOutcome`` and ``Inexpressible``). Without a frame that decides (an exception from another
process, a traceback of the standard library alone), it is the runtime's, as it always was.

Standard library only: the exec protocol's runtime side (``wireconf.exec_protocol.serve``) decides the
same way for the adapter it serves, and says so in its error message (``origin``).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from types import TracebackType

from wireconf.core.error_categories import shown_name

ADAPTER_MODULES = "adapter_modules"
"""The adapter attribute naming its own modules (module names; a package's name stands for its modules)."""
RUNTIME_PACKAGES = "runtime_packages"
"""The adapter attribute naming the runtime's packages, so that other libraries' frames are passed over."""

Exempt = tuple[type[BaseException], ...]
"""Classes an adapter raises on purpose (the adapter contract's ``RuntimeOutcome``, ``Inexpressible``)."""

_HARNESS = "wireconf"
_RUNTIME_INSIDE_HARNESS = ("wireconf.reference_impl",)
"""The reference is a runtime like any other, though it ships inside wireconf."""


@dataclass(frozen=True)
class Ownership:
    """Which modules are the adapter's, and (``None``: every other one) which are the runtime's."""

    adapter: tuple[str, ...]
    runtime: tuple[str, ...] | None = None

    @classmethod
    def of(cls, adapter: object) -> Ownership:
        """What ``adapter`` declares (``adapter_modules``, ``runtime_packages``), else the module that
        defines its class (a module that is the adapter: that module) and every other package."""
        default = adapter.__name__ if isinstance(adapter, type(sys)) else type(adapter).__module__
        own = getattr(adapter, ADAPTER_MODULES, None)
        runtime = getattr(adapter, RUNTIME_PACKAGES, None)
        return cls((default,) if own is None else _names(own), None if runtime is None else _names(runtime))


def _names(value: object) -> tuple[str, ...]:
    """Module names declared as one string or an iterable of them."""
    if isinstance(value, str):
        return (value,)
    return tuple(str(name) for name in value) if isinstance(value, list | tuple | set | frozenset) else ()


def _within(module: str, names: tuple[str, ...]) -> bool:
    return any(module == name or module.startswith(name + ".") for name in names)


def _passed_over(module: str, own: Ownership) -> bool:
    """A frame that raises for whoever called it: the standard library, wireconf's harness, and a library
    that is not the runtime's (when the adapter names the runtime's packages)."""
    if not module or module == "__main__" or module.split(".")[0] in sys.stdlib_module_names:
        return True
    if _within(module, own.adapter):
        return False
    if _within(module, (_HARNESS,)) and not _within(module, _RUNTIME_INSIDE_HARNESS):
        return True
    return own.runtime is not None and not _within(module, own.runtime)


def _frames(tb: TracebackType | None) -> list[tuple[str, int, str]]:
    """``(module, line, function)`` of each frame, innermost first."""
    frames = []
    while tb is not None:
        frame = tb.tb_frame
        frames.append((_module_of(frame.f_globals), tb.tb_lineno, frame.f_code.co_name))
        tb = tb.tb_next
    return frames[::-1]


def _module_of(namespace: dict[str, object]) -> str:
    """A frame's module by name; a module run as ``python -m`` (``__main__``, as the exec helper is) by
    the name it was found under."""
    name = str(namespace.get("__name__") or "")
    spec = namespace.get("__spec__")
    found = getattr(spec, "name", None)
    return str(found) if name == "__main__" and found else name


def adapter_raised(exc: BaseException, own: Ownership, exempt: Exempt = ()) -> str:
    """``module:line (function)`` of the adapter's own frame that raised ``exc``; ``""`` when the
    exception is the runtime's (or raised on purpose: declared, or of an ``exempt`` class)."""
    seen: set[int] = set()
    while id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, exempt) or hasattr(exc, "wireconf_category"):
            return ""
        if exc.__cause__ is not None:  # ``raise X from exc``: a translation of what its cause says
            exc = exc.__cause__
            continue
        frames = _frames(exc.__traceback__)
        if isinstance(exc, TypeError) and frames and _is_harness(frames[0][0]):
            # raised by a call in the harness's own frame (the adapter's method never ran)
            module, line, function = frames[0]
            return f"{module}:{line} ({function}) calling it: {CALL_MISMATCH}"
        for module, line, function in frames:
            if not _passed_over(module, own):
                return f"{module}:{line} ({function})" if _within(module, own.adapter) else ""
        return ""
    return ""


CALL_MISMATCH = "the adapter's method does not take the arguments the contract passes"
"""Where a ``TypeError`` was raised by wireconf's call of an adapter method itself (a missing or an
unexpected argument): not the runtime's doing, so no verdict."""


def _is_harness(module: str) -> bool:
    return _within(module, (_HARNESS,)) and not _within(module, _RUNTIME_INSIDE_HARNESS)


def adapters_own(exc: BaseException, own: Ownership, exempt: Exempt = ()) -> str | None:
    """Where the adapter's own code raised ``exc`` (``""``: somewhere it did not say), or ``None`` when
    the exception is the runtime's. An exception from another process says it itself (``origin`` of the
    exec protocol's error: ``wireconf_origin``, ``wireconf_raised_at``); any other is read from its
    traceback (``adapter_raised``)."""
    remote = getattr(exc, "wireconf_origin", None)
    if remote is not None:
        return str(getattr(exc, "wireconf_raised_at", "") or "") if remote == "adapter" else None
    return adapter_raised(exc, own, exempt) or None


def adapter_bug(name: str, exc: BaseException, at: str, traceback: str) -> str:
    """The error of a case whose adapter ``name`` raised ``exc`` in its own code, at ``at``."""
    where = f", at {at}" if at else ""
    frames = "\n".join("    " + line for line in traceback.splitlines())
    return (
        f"error (not a verdict on the runtime): the adapter {name} raised {shown_name(exc)}: {exc} in its "
        f"own code{where}, not in the runtime it wraps: a bug of the adapter, to fix there "
        "(wireconf.core.raise_site tells its code from the runtime's by its `adapter_modules` and "
        "`runtime_packages`)\n"
        f"  traceback (adapter frames):\n{frames}"
    )

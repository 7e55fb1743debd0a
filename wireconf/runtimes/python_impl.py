"""A Python adapter found by name and checked against the adapter contract: an entry point of the group
``wireconf.adapters``, ``module:attribute`` or ``module``. The object found may be the adapter itself, a
class (instantiated without arguments) or a factory function. Every problem is one ``ImplError`` whose
message names ``--impl`` and whose hint says what it accepts.

Both sides of a run read it: ``wireconf.pytest_plugin.impl_loader`` (``--impl``, which adds ``exec:COMMAND``)
and the runtime side of the exec protocol (``python -m wireconf.exec_protocol.serve``), which serves a Python
adapter; it sits below both, so neither imports the other.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from wireconf.adapter_contract import METHOD_FOR_KIND, out_of_process, parse_capability
from wireconf.core.errors import WireconfError

ENTRY_POINT_GROUP = "wireconf.adapters"


class ImplError(WireconfError):
    """``--impl`` names something that cannot be used as an adapter."""


CONTRACT_HINT = (
    "an adapter has name, version and capabilities() and one method per kind it declares (docs/adapters.md)"
)


def _source_file(obj: Any) -> str | None:
    """The file that defines ``obj`` (or its class), where a broken adapter is fixed; ``None`` when unknown
    (an adapter over exec:, a builtin)."""
    for candidate in (obj, type(obj)):
        try:
            found = inspect.getsourcefile(candidate)
        except TypeError:
            continue
        if found:
            return found
    return None


@dataclass(frozen=True)
class LoadedImpl:
    """An adapter together with what the harness needs to know about it."""

    spec: str
    adapter: Any
    name: str
    version: str
    capabilities: frozenset[str]
    origin: str
    unavailable: str | None = None
    """Why the runtime behind an installed adapter cannot run here (its package is missing), or None."""

    def supports(self, cap: str) -> bool:
        return cap in self.capabilities


def _from_entry_point(name: str) -> tuple[Any, str] | None:
    matches = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if not matches:
        return None
    ep = matches[0]
    try:
        return ep.load(), f"entry point {name} = {ep.value}"
    except Exception as exc:  # an adapter whose package is broken or missing an optional extra
        raise ImplError(
            f"--impl {name}: entry point {ep.value} failed to load: {exc!r}",
            hint=f"the package that declares {ep.value} is broken or lacks a dependency: reinstall it "
            "with what it needs",
        ) from exc


def _from_module(spec: str) -> tuple[Any, str]:
    module_name, _, attr_path = spec.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
    except Exception as exc:
        raise ImplError(
            f"--impl {spec}: cannot import module {module_name!r}: {exc!r}",
            hint=f"--impl takes an entry point of {ENTRY_POINT_GROUP} (known: "
            f"{', '.join(available_entry_points()) or 'none'}), module:attribute, a module, or exec:COMMAND",
        ) from exc
    for part in attr_path.split(".") if attr_path else ():
        try:
            obj = getattr(obj, part)
        except AttributeError as exc:
            raise ImplError(
                f"--impl {spec}: {module_name} has no attribute {attr_path!r}",
                path=_source_file(obj),
                hint=f"name an attribute that {module_name} defines (module:attribute, dots for nested ones)",
            ) from exc
    return obj, spec


def available_entry_points() -> list[str]:
    """Names registered in the ``wireconf.adapters`` entry-point group."""
    return sorted({ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})


def _instantiate(obj: Any, spec: str) -> Any:
    if inspect.isclass(obj) or (callable(obj) and not hasattr(obj, "capabilities")):
        try:
            return obj()
        except Exception as exc:
            raise ImplError(
                f"--impl {spec}: creating the adapter {obj!r} raised {exc!r}",
                path=_source_file(obj),
                hint="the harness calls it with no arguments: name an instance, or a factory that takes none",
            ) from exc
    return obj


def load_python(spec: str) -> LoadedImpl:
    """Find, create and check the Python adapter that ``spec`` names (an entry point, ``module:attr``)."""
    found = None if ":" in spec else _from_entry_point(spec)
    obj, origin = found if found is not None else _from_module(spec)
    adapter = _instantiate(obj, spec)
    return check_adapter(adapter, spec, origin)


def check_adapter(adapter: Any, spec: str, origin: str) -> LoadedImpl:
    """Check the contract up front so that a broken adapter fails once, not once per case."""
    missing = [attr for attr in ("name", "version", "capabilities") if not hasattr(adapter, attr)]
    if missing:
        raise ImplError(
            f"--impl {spec}: the adapter {adapter!r} lacks {', '.join(missing)}",
            path=_source_file(adapter),
            hint=CONTRACT_HINT,
        )
    try:
        declared = adapter.capabilities()
    except Exception as exc:
        raise ImplError(
            f"--impl {spec}: capabilities() raised {exc!r}", path=_source_file(adapter), hint=CONTRACT_HINT
        ) from exc
    if isinstance(declared, str) or not hasattr(declared, "__iter__"):
        raise ImplError(
            f"--impl {spec}: capabilities() must return a set of strings, got {declared!r}",
            path=_source_file(adapter),
            hint="return a set of '<kind>:<api>' strings, one per kind and api it runs (docs/adapters.md)",
        )
    caps: set[str] = set()
    for cap in declared:
        try:
            kind, _ = parse_capability(cap) if isinstance(cap, str) else parse_capability(repr(cap))
        except ValueError as exc:
            raise ImplError(
                f"--impl {spec}: {exc}",
                path=_source_file(adapter),
                hint="a capability is <kind>:<api> or concept:<name> ("
                + (
                    "wireconf exec-schema lists them: $defs.capability"
                    if out_of_process(adapter) is not None
                    else "wireconf schema lists them"
                )
                + ")",
            ) from exc
        method = METHOD_FOR_KIND.get(kind)
        if method is not None and not callable(getattr(adapter, method, None)):
            raise ImplError(
                f"--impl {spec}: declares {cap!r} but has no method {method}()",
                path=_source_file(adapter),
                hint=f"define {method}() or stop declaring {cap!r}",
            )
        caps.add(cap)
    return LoadedImpl(
        spec=spec,
        adapter=adapter,
        name=str(adapter.name),
        version=str(adapter.version),
        capabilities=frozenset(caps),
        origin=origin,
        unavailable=getattr(adapter, "unavailable", None) or None,
    )

"""Resolve ``--impl`` into a checked adapter object.

Accepted forms (the README's "Testing your runtime"): an entry-point name of the group ``wireconf.adapters``,
``module:attribute``, ``module`` (a Python adapter: ``wireconf.runtimes.python_impl``), or ``exec:COMMAND`` (a
runtime in another process, ``wireconf.exec_protocol``). Every problem is reported as one ``ImplError`` whose
message names ``--impl`` and whose hint says what it accepts.
"""

from __future__ import annotations

from wireconf.runtimes.python_impl import ImplError, LoadedImpl, check_adapter, load_python


def load_impl(spec: str) -> LoadedImpl:
    """Find, create and check the adapter that ``spec`` names."""
    if spec.startswith("exec:"):
        from wireconf.exec_protocol.client import ExecAdapter, ExecError  # only a run over exec: needs it

        try:
            adapter = ExecAdapter(spec.removeprefix("exec:"))
        except ExecError as exc:
            raise ImplError(
                f"--impl {spec}: {exc.message}",
                path=exc.at.path,
                line=exc.at.line,
                hint=exc.hint
                or "exec: runs COMMAND in a shell-like split (exec:node my_runtime.js); "
                "check that it starts from this folder",
            ) from exc
        return check_adapter(adapter, spec, f"exec: {adapter.command}")
    return load_python(spec)

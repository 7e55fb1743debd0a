"""An ``exec:`` adapter meets the runners through ``adapter_contract.OutOfProcess``: the real one (the
Python helper's runtime, as ``--impl exec:`` loads it) has every member of the seam, so its cases run
inline, bounded by the adapter, never in a forked runner that would not know how to stop its process."""

from __future__ import annotations

import shlex
import sys
from types import SimpleNamespace

from wireconf.adapter_contract import OutOfProcess, out_of_process
from wireconf.pytest_plugin.impl_loader import load_impl
from wireconf.pytest_plugin.runners import InlineRunner, make_runner

PY_SERVE = f"{shlex.quote(sys.executable)} -m wireconf.exec_protocol.serve reference"


def test_an_exec_adapter_is_out_of_process_and_runs_inline():
    impl = load_impl(f"exec:{PY_SERVE}")
    try:
        assert isinstance(impl.adapter, OutOfProcess)
        runtime = out_of_process(impl.adapter)
        assert runtime is impl.adapter and isinstance(runtime.sends_ahead, bool)
        host = SimpleNamespace(impl=impl, timeout=5.0, on_recorded=None)
        runner = make_runner(host, "process")  # an exec adapter runs inline whatever --case-runner says
        assert isinstance(runner, InlineRunner)
        assert (runner.name, runner.network) == ("exec", runtime.network)
    finally:
        impl.adapter.close()

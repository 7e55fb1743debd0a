"""The harness's side of the exec protocol, kept for its importers: ``ExecAdapter`` lives in
``adapter.py`` (the process in ``process.py``, its life in ``supervisor.py``, a call's messages in
``calls.py``, its conversation in ``conversation.py``, calls sent ahead in ``ahead.py``)."""

from wireconf.exec_protocol.adapter import ExecAdapter
from wireconf.exec_protocol.calls import http_answer as _http_answer
from wireconf.exec_protocol.hello import check_hello as _check_hello
from wireconf.exec_protocol.process import STDERR_LINE_CHARS, ExecError

__all__ = ["STDERR_LINE_CHARS", "ExecAdapter", "ExecError", "_check_hello", "_http_answer"]

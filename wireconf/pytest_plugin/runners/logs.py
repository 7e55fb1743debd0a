"""A case's log records, from the runner process that ran it to the pytest process's logging."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from wireconf.core.untyped import JSON
from wireconf.providers.secret_values import key_values, redact

if TYPE_CHECKING:
    from wireconf.pytest_plugin.case_run import CaseResult


class LogRecords(logging.Handler):
    """Collects the log records of a case in the runner process, as plain dicts for the pipe."""

    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        self.records: list[dict[str, JSON]] = []

    def emit(self, record: logging.LogRecord) -> None:
        data = {
            k: v for k, v in record.__dict__.items() if isinstance(v, str | int | float | bool | type(None))
        }
        data["msg"], data["args"] = record.getMessage(), None
        if record.exc_info:
            data["exc_text"] = logging.Formatter().formatException(record.exc_info)
        self.records.append(data)


def replay_logs(result: CaseResult) -> None:
    """Hand a runner process's log records to this process's logging (pytest's capture, live logs),
    without the environment's keys: live logs and ``--log-file`` are not reports the makereport
    wrapper redacts."""
    if not result.logs:
        return
    values = key_values()
    for data in result.logs:
        record = logging.makeLogRecord(data)
        if values:
            record.msg = redact(str(record.msg), values)
            record.exc_text = redact(record.exc_text, values) if record.exc_text else record.exc_text
        logging.getLogger(record.name).handle(record)

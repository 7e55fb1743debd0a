"""What stops a case before its verdict: the time limit, and the end of the process it ran in.

``CaseAborted`` derives from ``BaseException``: drivers turn an adapter's exceptions (``Exception``)
into outcomes to judge, and a runtime's own ``except Exception`` must not swallow the harness's
decision either. An aborted case is an ERROR: no verdict is possible. The message says what happened
and how long it took.
"""

from __future__ import annotations


class CaseAborted(BaseException):
    """The harness stopped a case before a verdict: the message says what happened and how long it
    took. Carries the cassettes the case had recorded before it was stopped."""

    def __init__(self, message: str, recorded: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.recorded = recorded

    def __str__(self) -> str:
        text = str(self.args[0]) if self.args else ""
        if self.recorded:
            text += f" (it had recorded {', '.join(self.recorded)} before that)"
        return text


class CaseTimeout(CaseAborted):
    """The case did not finish within ``--case-timeout``."""

    def __init__(
        self, seconds: float, elapsed: float | None = None, how: str = "", recorded: tuple[str, ...] = ()
    ) -> None:
        self.seconds = seconds
        self.elapsed = elapsed
        after = f" after {elapsed:.1f} s" if elapsed is not None else ""
        how = how or f"it was abandoned{after}"
        super().__init__(f"the case did not finish within {seconds:g} s (--case-timeout): {how}", recorded)


class RunnerEnded(CaseAborted):
    """The process that ran the case ended while it did (``os._exit`` in the adapter, a crash in C code)."""

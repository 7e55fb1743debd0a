"""Everything one case does, from its inputs to its verdict, returned as plain data.

``prepare_case`` builds the case's inputs (cassette → SDK objects: the harness's own work, on
recorded bytes); ``call_case`` calls the adapter and makes what it returned plain data (the runtime's
part: its code runs in both); ``judge_case`` judges that data (the harness's part again);
``finish_case`` is the two in one. They return plain data in the end, a ``CaseResult`` (strings, lists
and ``Difference`` records), so that it can cross a process boundary: the process runner runs them in a
forked process and sends the result back.
``--case-timeout`` bounds ``call_case``, everything the runtime's code can make hang; the runners bound
the preparation and the judging too, each with a budget of its own (``PREPARE_LIMIT``,
``JUDGE_LIMIT``): what the
harness does on its own time (a cassette parsed, the provider's request type built the first time a
request differs from its expectation, ``wireconf.judging.schema_check``) is never charged to the
runtime. What the result shows has every rendering of the environment's keys replaced
(``wireconf.providers.secret_values.redact``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import pytest

from wireconf.adapter_contract import Inexpressible, RuntimeOutcome
from wireconf.core import raise_site
from wireconf.core.differences import Difference, Line
from wireconf.core.errors import CaseInputError, ContractError, NotJudged
from wireconf.core.raise_site import Ownership, adapters_own
from wireconf.corpus.model import CaseBase
from wireconf.judging.canonical import NotData
from wireconf.judging.outcome import CanonicalOutcome, Outcome, canonical_outcome
from wireconf.judging.recorded_values import with_recorded_values
from wireconf.judging.verdict import judge_variants
from wireconf.kinds.kind import Call, Kind
from wireconf.kinds.registry import KINDS
from wireconf.kinds.sites import CaseSites
from wireconf.providers.secret_values import redact

if TYPE_CHECKING:
    from wireconf.corpus.case import LoadedCase
    from wireconf.pytest_plugin.case_host import CaseHost


@dataclass
class CaseResult:
    """The outcome of one case as data: ``judged`` (``lines`` empty when it passes), ``error`` (no
    verdict: ``message`` says why), ``skipped`` or ``unsupported`` (``message`` is the reason)."""

    status: Literal["judged", "error", "skipped", "unsupported"]
    message: str = ""
    lines: list[Line] = field(default_factory=list)
    """The verdict's explanation: prose and ``Difference`` objects (plain dataclasses: they pickle)."""
    attempts: list[str] = field(default_factory=list)
    """Network attempts the case's own code made (blocked), shown as ``action host:port (thread)``."""
    recorded: list[str] = field(default_factory=list)
    """Cassettes the case wrote (record mode)."""
    watched: str = ""
    """The cassettes folder watched while the case ran (empty where it could not be watched)."""
    changed: list[str] = field(default_factory=list)
    """Files created, written, moved or deleted in that folder while the case ran by the process that ran
    it, not as the harness's recording: the runtime's doing (``wireconf.cassettes.watch``)."""
    unknown: list[str] = field(default_factory=list)
    """Files changed in that folder while the case ran by no process the harness knows: an error of the
    run, not of the case (``wireconf.pytest_plugin.corpus_guard``)."""
    stdout: str = ""
    stderr: str = ""
    logs: list[dict[str, Any]] = field(default_factory=list)
    """Log records (``LogRecord.__dict__``, message formatted) of a case run in another process."""
    runtime_seconds: float = 0.0
    """How long the adapter call took (the runtime's part): pytest's reports charge it to the call
    phase, although the case runs during the item's setup (``items.CaseItem.charge``)."""


PREPARE_LIMIT = 60.0
"""Seconds the harness's own preparation of a case may take (parsing a cassette, building SDK
objects), apart from ``--case-timeout``, which is the runtime's: the limit still holds if it hangs."""

JUDGE_LIMIT = 60.0
"""Seconds the harness's judging of a case may take (the first request that differs from its
expectation builds the provider's request type: seconds), apart from ``--case-timeout`` too."""


_CALLING: set[CaseSites] = set()
"""The sites of the cases whose adapter call is running (``call_case``): one, or one abandoned too. A
case's sites are its own from its preparation to the end of its call, so that the inline runner can
prepare the next cases (their calls sent ahead, over their sites) while one runs."""


@dataclass
class Prepared:
    """A case ready to run: its inputs built, the adapter not called yet."""

    loaded: LoadedCase[CaseBase]
    call: Call[Any]
    case: Any
    sites: CaseSites = field(default_factory=CaseSites)
    """The case's sites on the provider emulator, closed when its call ends (``call_case``)."""


def prepare_case(session: CaseHost, loaded: LoadedCase[CaseBase], corpus_root: Path) -> Prepared | CaseResult:
    """The case's inputs, or the ``CaseResult`` that says why there are none (an error, a skip)."""
    ctx = session.context(corpus_root)
    ctx.opened.clear()  # the exchanges this case opens (a thread runner cancels them if it abandons it)
    for abandoned in list(_CALLING):  # a call still running (a thread runner's timeout) is abandoned:
        abandoned.close()  # its sites answer nothing more (those of cases prepared ahead stay open)
    ctx.sites = sites = CaseSites(session.impl.adapter)
    kind = KINDS[loaded.kind]
    try:
        call = kind.prepare(ctx, loaded)
        case = with_recorded_values(loaded, lambda where: kind.recorded_document(ctx, loaded, where))
    except CaseInputError as exc:
        sites.close()
        return CaseResult("error", redact(f"cannot prepare the case's input: {exc}"))
    except pytest.skip.Exception as exc:
        sites.close()
        return CaseResult("skipped", str(exc.msg))
    return Prepared(loaded, call, case, sites)


@dataclass
class Called:
    """A case whose adapter call returned: what the runtime did, as plain data, not judged yet."""

    kind: Kind[Any, Any]
    case: Any
    canonical: CanonicalOutcome[Any]
    runtime_seconds: float


def call_case(session: CaseHost, prepared: Prepared) -> Called | CaseResult:
    """Call the adapter and make its outcome plain data (``canonical_outcome`` reads the runtime's
    objects, so its code runs here too), or the error that says why there is none. Raises only what
    stops a case (the time limit) and the harness's own bugs."""
    loaded, case = prepared.loaded, prepared.case
    kind = KINDS[loaded.kind]
    started = time.perf_counter()
    _CALLING.add(prepared.sites)
    try:
        outcome = prepared.call(session.impl.adapter)
    except (ContractError, NotJudged) as exc:
        return CaseResult("error", redact(f"error: {exc}"))
    finally:
        _CALLING.discard(prepared.sites)
        refused = prepared.sites.close()
    runtime_seconds = time.perf_counter() - started
    if refused:  # a request outside the case: the case's error, whatever the runtime made of it
        shown = "\n".join(f"  {line}" for line in refused)
        return CaseResult(
            "error",
            redact(f"error (not a verdict on the runtime): the provider emulator refused requests:\n{shown}"),
        )
    if _raised(outcome, BaseException) is not None:  # whose exception it is (most outcomes raised none)
        name, adapter = session.impl.name, session.impl.adapter
        fault = not_judged(outcome)
        if fault is not None:
            return CaseResult("error", redact(f"error (not a verdict on the runtime): {fault}"))
        inexpressible = _raised(outcome, Inexpressible)
        if inexpressible is not None:
            return CaseResult(
                "unsupported", redact(f"{name} cannot express this case's input: {inexpressible}")
            )
        bug = adapter_bug(outcome, name, adapter)
        if bug:
            return CaseResult("error", redact(bug))
    try:
        canonical = canonical_outcome(outcome)
    except NotData as exc:
        return CaseResult("error", redact(f"error: {exc}"))
    return Called(kind, case, canonical, runtime_seconds)


def judge_case(called: Called) -> CaseResult:
    """The verdict on what the runtime did (plain data: no code of the runtime's runs here)."""
    try:
        lines = judge_variants(
            called.case, called.canonical, called.kind.noun, called.kind.label, called.kind.judge
        )
    except NotJudged as exc:
        result = CaseResult("error", redact(f"error (not a verdict on the runtime): {exc}"))
    else:
        result = CaseResult("judged", lines=[_redacted(line) for line in lines])
    result.runtime_seconds = called.runtime_seconds
    return result


def finish_case(
    session: CaseHost, prepared: Prepared, judging: Callable[[], None] = lambda: None
) -> CaseResult:
    """``call_case``, then ``judge_case``; ``judging()`` is called between them (where the runtime's part
    ends: the process runner marks it, and the time limit stops there)."""
    called = call_case(session, prepared)
    if isinstance(called, CaseResult):
        return called
    judging()
    return judge_case(called)


def _raised(outcome: Outcome[Any], cls: type[BaseException]) -> BaseException | None:
    """What the outcome or one of its variants raised of class ``cls``."""
    for candidate in (outcome, *(variant for _, variant in outcome.variants)):
        if isinstance(candidate.raised, cls):
            return candidate.raised
    return None


def adapter_bug(outcome: Outcome[Any], name: str, adapter: object) -> str:
    """The error of an outcome whose exception the adapter's own code raised (``wireconf.core.raise_site``),
    or ``""``: a bug of the adapter says nothing about the runtime, so the case is an error naming it."""
    own: Ownership | None = None  # worked out only for an outcome that raised: most cases return
    for candidate in (outcome, *(variant for _, variant in outcome.variants)):
        exc = candidate.raised
        if exc is None:
            continue
        own = own or Ownership.of(adapter)
        at = adapters_own(exc, own, (RuntimeOutcome, Inexpressible, NotJudged))
        if at is not None:
            return raise_site.adapter_bug(name, exc, at, candidate.traceback())
    return ""


def not_judged(outcome: Outcome[Any]) -> NotJudged | None:
    """The harness's own fault an adapter call seems to have raised (``NotJudged``: the exec protocol
    broken inside the call, an input it could not deliver), in the outcome or any of its variants: what
    the runtime did is then unknown, and the case is an error, not a failure."""
    for candidate in (outcome, *(variant for _, variant in outcome.variants)):
        if isinstance(candidate.raised, NotJudged):
            return candidate.raised
    return None


def _redacted(line: Line) -> Line:
    """A line with every rendering of the environment's keys replaced; a difference stays one."""
    if isinstance(line, Difference):
        return replace(line, text=redact(line.text), shape=redact(line.shape))
    return redact(line)

"""Path-level waivers in a baseline: one difference a runtime is known to have, waived with a reason,
while the rest of each case is still judged.

    waivers:
      - subject: request
        path: $.stream
        change: unexpected-key
        reason: the runtime always sends `stream`, false for a plain call; harmless
        cases: [wire.openai.chat.single-text-part-is-string, ...]

A waiver names a difference as a diff prints it: what was compared (``subject``: request, result,
yielded-before-error, spans; any when absent), its ``path`` (``[*]`` any index, ``.*`` any one key, ``**``
anything further, as in a rule's ``governs``) and the kind of difference (``change``; any when absent),
and the ``cases`` it is known in. In those cases the difference is set aside and the rest is judged: a
case whose only differences are waived passes. A listed case where the waiver no longer matches fails,
like a listed expected failure that passes. ``--update-baseline`` rewrites every waiver's ``cases``
from the run: the cases where it matched (a new waiver can be written with ``cases: []``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from wireconf.core.differences import CHANGES, SUBJECTS, Difference
from wireconf.core.errors import WireconfError
from wireconf.core.untyped import YAML
from wireconf.corpus.rules import path_pattern

KEYS = ("subject", "path", "change", "reason", "cases")


class WaiverError(WireconfError):
    """A waiver of the baseline file is malformed; the message names the entry."""


@dataclass
class Waiver:
    path: str
    reason: str
    subject: str | None = None
    change: str | None = None
    cases: list[str] = field(default_factory=list)

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        return path_pattern(self.path)

    @property
    def label(self) -> str:
        """``request $.stream unexpected-key``: the difference it waives."""
        return " ".join(x for x in (self.subject, self.path, self.change) if x)

    def matches(self, difference: Difference) -> bool:
        return (
            (self.subject is None or self.subject == difference.subject)
            and (self.change is None or self.change == difference.change)
            and self.pattern.fullmatch(difference.path) is not None
        )

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            k: getattr(self, k) for k in ("subject", "path", "change") if getattr(self, k)
        }
        data["reason"] = self.reason
        data["cases"] = sorted(self.cases)
        return data


def parse_waivers(value: YAML, where: Path) -> list[Waiver]:
    """The ``waivers`` section of a baseline file; ``WaiverError`` names the entry at fault."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise WaiverError(f"--baseline {where}: `waivers` must be a list of {{path, change, reason, cases}}")
    out = []
    for index, entry in enumerate(value):
        name = f"--baseline {where}: waivers[{index}]"
        if not isinstance(entry, dict):
            raise WaiverError(f"{name} must be a mapping with {', '.join(KEYS)}")
        unknown = set(entry) - set(KEYS)
        if unknown:
            raise WaiverError(f"{name}: unknown key(s) {', '.join(sorted(map(str, unknown)))}")
        path, reason, cases = entry.get("path"), entry.get("reason"), entry.get("cases") or []
        if not isinstance(path, str) or not path.startswith("$"):
            raise WaiverError(f"{name} needs a `path` as diffs print it ($.stream), got {path!r}")
        if not isinstance(reason, str) or not reason.strip():
            raise WaiverError(f"{name} ({path}) needs a reason (a non-empty string)")
        subject, change = entry.get("subject"), entry.get("change")
        if subject is not None and subject not in SUBJECTS:
            raise WaiverError(f"{name} ({path}): `subject` is one of {', '.join(SUBJECTS)}, got {subject!r}")
        if change is not None and change not in CHANGES:
            raise WaiverError(f"{name} ({path}): `change` is one of {', '.join(CHANGES)}, got {change!r}")
        if not isinstance(cases, list) or not all(isinstance(c, str) for c in cases):
            raise WaiverError(f"{name} ({path}): `cases` must be a list of case ids")
        out.append(Waiver(path, reason, subject, change, list(cases)))
    return out


@dataclass
class WaiverOutcome:
    """What the waivers did to one case: the differences left to judge, those waived (with the index
    of their waiver) and the waivers that list the case but matched nothing in it."""

    kept: list[int] = field(default_factory=list)
    waived: list[tuple[int, int]] = field(default_factory=list)  # (difference index, waiver index)
    stale: list[int] = field(default_factory=list)


def apply_waivers(
    waivers: list[Waiver], case_id: str, found: list[Difference], *, any_case: bool = False
) -> WaiverOutcome:
    """Set aside the differences of ``case_id`` that its waivers match; with ``any_case`` (while the
    baseline is being updated) every waiver applies, whether it lists the case or not."""
    outcome = WaiverOutcome()
    applicable = [i for i, w in enumerate(waivers) if any_case or case_id in w.cases]
    matched: set[int] = set()
    for index, difference in enumerate(found):
        waiver = next((i for i in applicable if waivers[i].matches(difference)), None)
        if waiver is None:
            outcome.kept.append(index)
        else:
            outcome.waived.append((index, waiver))
            matched.add(waiver)
    outcome.stale = [i for i in applicable if i not in matched and case_id in waivers[i].cases]
    return outcome

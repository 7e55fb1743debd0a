"""Compare the verdicts of two sets of full-corpus runs (JSONL reports): failures by tier per runtime,
how each failure's differences were attributed, and every verdict that changed tier or rule.

    python tools/attribution_compare.py BEFORE_DIR AFTER_DIR

Each directory holds the ``--report`` files of one set of runs (``/work/lanes/runall.sh`` writes one per
runtime: ``prompty.jsonl``, ``nat.jsonl``, …); runtimes are matched by ``impl version`` as the records
name them. The figures are read from the records only (``status``, ``tier``, ``differences[].rules``
and ``differences[].basis``), so a report of any wireconf version since attributions were reported
can be compared with any other. Nothing is judged again here.

Printed per runtime: the failures by tier (``unruled``: a failure whose differences no rule declares,
which has no tier; ``none``: a failure with no attributed difference, e.g. a stale waiver or a report
without attributions), the differences by basis (declared, cited — the old fallback —, unruled), the
errors, and then each case whose verdict changed: its status, tier or broken rules before → after.
Last, the moves in aggregate over every runtime: the tier changes, and each rule with the number of
failing verdicts it left and joined (a rule that left many verdicts while another joined them is a
class of differences whose attribution changed).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from wireconf.reports.jsonl import CaseRecord, read_records

TIERS = ("spec", "vectors", "project", "unruled", "none")


@dataclass(frozen=True)
class Verdict:
    """What a report says of one case, as compared here."""

    status: str
    tier: str
    rules: tuple[str, ...]

    def __str__(self) -> str:
        if self.status != "failed":
            return self.status
        return f"failed [{self.tier}] {', '.join(self.rules) or '(no rule)'}"


def verdict(record: CaseRecord) -> Verdict:
    if record.status != "failed":
        return Verdict(record.status, "", ())
    differences = record.differences or []
    rules = tuple(sorted({r for d in differences for r in d.get("rules") or []}))
    if record.tier:
        tier = record.tier
    elif any(d.get("basis") == "unruled" for d in differences):
        tier = "unruled"
    else:
        tier = "none"
    return Verdict(record.status, tier, rules)


def by_runtime(directory: Path) -> dict[str, dict[str, CaseRecord]]:
    """``impl version`` → case id → record, from every ``*.jsonl`` of ``directory``."""
    paths = sorted(directory.glob("*.jsonl"))
    if not paths:
        raise SystemExit(f"{directory}: no *.jsonl reports")
    out: dict[str, dict[str, CaseRecord]] = {}
    for record in read_records(paths):
        out.setdefault(record.runtime, {})[record.id] = record
    return out


def summary(records: Iterable[CaseRecord]) -> tuple[Counter[str], Counter[str], Counter[str]]:
    """Failures by tier, differences by basis, cases by status."""
    tiers: Counter[str] = Counter()
    basis: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    for record in records:
        statuses[record.status] += 1
        if record.status != "failed":
            continue
        tiers[verdict(record).tier] += 1
        for difference in record.differences or []:
            basis[str(difference.get("basis") or "?")] += 1
    return tiers, basis, statuses


def _counts(counter: Counter[str], keys: Iterable[str]) -> str:
    known = [f"{k} {counter[k]}" for k in keys if counter[k]]
    others = [f"{k} {n}" for k, n in sorted(counter.items()) if k not in keys]
    return ", ".join(known + others) or "none"


def compare(before: Path, after: Path) -> list[str]:
    old, new = by_runtime(before), by_runtime(after)
    lines: list[str] = []
    for runtime in sorted(set(old) | set(new)):
        was, now = old.get(runtime, {}), new.get(runtime, {})
        lines.append(f"## {runtime}")
        for label, records in (("before", was), ("after", now)):
            if not records:
                lines.append(f"- {label}: no report")
                continue
            tiers, basis, statuses = summary(records.values())
            lines.append(
                f"- {label}: {statuses['failed']} failed (by tier: {_counts(tiers, TIERS)}), "
                f"{statuses['error']} error, {statuses['passed']} passed; differences by basis: "
                f"{_counts(basis, ('declared', 'cited', 'unruled'))}"
            )
        changed = [
            (case_id, verdict(was[case_id]), verdict(now[case_id]))
            for case_id in sorted(set(was) & set(now))
            if verdict(was[case_id]) != verdict(now[case_id])
        ]
        lines.append(f"- verdicts that changed status, tier or rule: {len(changed)}")
        lines += [f"  - `{case_id}`: {a} → {b}" for case_id, a, b in changed]
        lines.append("")
    return lines


def moves(before: Path, after: Path) -> list[str]:
    """The changed verdicts of every runtime, in aggregate: tier changes and rules left or joined."""
    old, new = by_runtime(before), by_runtime(after)
    tiers: Counter[str] = Counter()
    left: Counter[str] = Counter()
    joined: Counter[str] = Counter()
    for runtime in set(old) & set(new):
        for case_id in set(old[runtime]) & set(new[runtime]):
            was, now = verdict(old[runtime][case_id]), verdict(new[runtime][case_id])
            if was == now or "failed" not in (was.status, now.status):
                continue
            if was.tier != now.tier:
                tiers[f"{was.tier or was.status} → {now.tier or now.status}"] += 1
            left.update(set(was.rules) - set(now.rules))
            joined.update(set(now.rules) - set(was.rules))
    lines = ["## moves in aggregate (every runtime)"]
    lines.append(f"- tier changes: {_counts(tiers, ()) if tiers else 'none'}")
    for rule in sorted(set(left) | set(joined), key=lambda r: (-(left[r] + joined[r]), r)):
        lines.append(f"  - `{rule}`: left {left[rule]}, joined {joined[rule]}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="directory of the reports before")
    parser.add_argument("after", type=Path, help="directory of the reports after")
    args = parser.parse_args(argv)
    lines = compare(args.before, args.after) + moves(args.before, args.after)
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Check every request the corpus expects (wire ``expect``, e2e ``expect_request``) against the official
SDK's request type for its api, list the ones the provider's SDK rejects, and time the check.

    python benchmarks/provider_schema.py [CORPUS_ROOT] [--repeat N]

The list is the findings page's (``wireconf.reports.provider_schema``): requests the spec's pseudocode
builds that the SDK type rejects, each with the rules its case cites. The cost printed: the time to build
each SDK type's validator (once per process) and one check once built. A run checks a request only when
it already differs from its expectation (``wireconf.judging.schema_check.rejections``), so a passing
case costs nothing, and a failing one the check's time (plus the validator's build, once per process).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from wireconf.compare import differences
from wireconf.corpus.loader import load_corpus
from wireconf.judging.schema_check import _adapter, problems, rejections
from wireconf.kinds.registry import CASE_ADAPTER
from wireconf.providers.registry import APIS
from wireconf.reports.provider_schema import expected_rejections, expected_requests


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", default="cases", type=Path)
    parser.add_argument("--repeat", type=int, default=3, help="times each timed step runs (default: 3)")
    args = parser.parse_args(argv)
    corpus = load_corpus(args.root, CASE_ADAPTER)
    builds: dict[str, float] = {}
    checks: list[float] = []
    checked: dict[str, int] = {}
    for case, body in expected_requests(corpus):
        record = APIS[case.api]
        if record.request_type is None:
            continue
        request_type = record.request_type(body)
        for dotted in [request_type] if isinstance(request_type, str) else request_type.values():
            if dotted not in builds:
                start = time.perf_counter()
                _adapter(dotted)
                builds[dotted] = time.perf_counter() - start
        start = time.perf_counter()
        problems(request_type, body)
        checks.append(time.perf_counter() - start)
        checked[case.api] = checked.get(case.api, 0) + 1
    # a failing case's judging with and without the check: the expected body with one key more (which
    # the check then finds), compared as a run compares it, then checked as a run checks it
    without: list[float] = []
    with_check: list[float] = []
    for case, body in [pair for _ in range(args.repeat) for pair in expected_requests(corpus)]:
        actual = {**body, "wireconf_extra": 1}
        start = time.perf_counter()
        differences(body, actual, subject="request")
        middle = time.perf_counter()
        rejections(case.api, actual, body)
        end = time.perf_counter()
        without.append(middle - start)
        with_check.append(end - start)
    rejected = expected_rejections(corpus)
    print("requests checked per api: " + ", ".join(f"{a} {n}" for a, n in sorted(checked.items())))
    print(f"requests the SDK type rejects: {len(rejected)}")
    for item in rejected:
        note = " (holds a matcher)" if item.matcher else ""
        print(f"- {item.case} [{item.api}]{note}; cites {', '.join(item.rules)}")
        for problem in item.problems:
            print(f"    {problem.text}")
    print("cost: building each SDK type's validator (once per process):")
    for dotted, seconds in builds.items():
        print(f"  {dotted}: {seconds:.2f} s")
    print(
        f"cost: one check once built: mean {statistics.mean(checks) * 1000:.2f} ms, median "
        f"{statistics.median(checks) * 1000:.2f} ms, over {len(checks)} requests"
    )
    print(
        "cost per failing case (its request differs): comparison alone mean "
        f"{statistics.mean(without) * 1000:.2f} ms, "
        f"with the check mean {statistics.mean(with_check) * 1000:.2f} ms (median "
        f"{statistics.median(without) * 1000:.2f} → {statistics.median(with_check) * 1000:.2f} ms), over "
        f"{len(without)} requests; a passing case: no check, no cost"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

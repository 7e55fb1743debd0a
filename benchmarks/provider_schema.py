"""Check every request the corpus expects (wire ``expect``, e2e ``expect_request``) against the pinned
contract of its api's provider, list the ones the contract rejects, and time the check.

    python benchmarks/provider_schema.py [CORPUS_ROOT] [--repeat N]

The list is the findings page's and ``wireconf lint``'s (``wireconf.reports.provider_schema``): requests
the spec's pseudocode builds that the contract rejects, each with the rules its case cites. The cost
printed: the time to build each request schema's validator (once per process) and one check once built.
A run checks every request a case captures (``wireconf.judging.schema_check.rejections``), passing or
not, and the request the case expects once more when the runtime's has problems.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from wireconf.corpus.loader import load_corpus
from wireconf.judging.schema_check import rejections
from wireconf.kinds.registry import CASE_ADAPTER
from wireconf.providers.contract import _validator, problems, request_schema, versions_line
from wireconf.reports.provider_schema import expected_rejections, expected_requests


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", default="cases", type=Path)
    parser.add_argument("--repeat", type=int, default=3, help="times each timed step runs (default: 3)")
    args = parser.parse_args(argv)
    corpus = load_corpus(args.root, CASE_ADAPTER)
    builds: dict[tuple[str, str], float] = {}
    checks: list[float] = []
    checked: dict[str, int] = {}
    for case, body in expected_requests(corpus):
        found = request_schema(case.api, body)
        if found is None:
            continue
        if found not in builds:
            start = time.perf_counter()
            _validator(*found)
            builds[found] = time.perf_counter() - start
        start = time.perf_counter()
        problems(case.api, body)
        checks.append(time.perf_counter() - start)
        checked[case.api] = checked.get(case.api, 0) + 1
    # a failing case's check: the expected body with one key more (which the check then finds)
    with_check: list[float] = []
    for case, body in [pair for _ in range(args.repeat) for pair in expected_requests(corpus)]:
        actual = {**body, "wireconf_extra": 1}
        start = time.perf_counter()
        rejections(case.api, actual, body)
        with_check.append(time.perf_counter() - start)
    rejected = expected_rejections(corpus)
    print(versions_line())
    print("requests checked per api: " + ", ".join(f"{a} {n}" for a, n in sorted(checked.items())))
    print(f"requests the contract rejects: {len(rejected)}")
    for item in rejected:
        note = " (holds a matcher)" if item.matcher else ""
        print(f"- {item.case} [{item.api}]{note}; cites {', '.join(item.rules)}")
        for problem in item.problems:
            print(f"    {problem.text}")
    print("cost: building each request schema's validator (once per process):")
    for (provider, name), seconds in builds.items():
        print(f"  {provider} {name}: {seconds * 1000:.1f} ms")
    print(
        f"cost: one check once built: mean {statistics.mean(checks) * 1000:.2f} ms, median "
        f"{statistics.median(checks) * 1000:.2f} ms, over {len(checks)} requests"
    )
    print(
        f"cost per failing request (its own check and its expectation's): mean "
        f"{statistics.mean(with_check) * 1000:.2f} ms, median {statistics.median(with_check) * 1000:.2f} ms, "
        f"over {len(with_check)} requests"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

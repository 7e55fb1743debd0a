"""How many planted keys reach the disk or a report when recording against the fake provider.

    .venv/bin/python benchmarks/planted_secrets.py [--repeat 1] [--keep DIR]

Starts the fake provider (tests/fake_provider.py) on 127.0.0.1 and records, with `--record-mode=all`,
one e2e case per place a key can hide, through a runtime (tests/fakes/leaky.py) that itself puts the
key in its request (an `api_key` body field, `key=` and `subscription-key=` query parameters), its
prints, its logs and its exceptions, while the SDK sends it in the authorization header and the
server echoes it in a response header. The server answers each case with the key planted in one more
place: the JSON answer, base64- and hex-encoded text, a body that is not UTF-8, a body cut in the
middle of a character, a stream of four-character deltas, an error message (PLACES). --repeat runs
the whole set that many times (N = places x repeat recordings).

The recording runs against a baseline whose waiver sets the runtime's `api_key` field aside in one
case, so the reports carry every kind of verdict data: failure diffs, the differences each with the
rules it breaks, a waived difference, root causes. Then `wireconf findings` replays the recordings with
the keys still set (the runtime still sends its key) and refreshes a baseline from that run.

Then every file written under the cassettes folder, the terminal output, the --report JSONL, the JUnit
file (with captured output and logs), the HTML page (matrix, by-rule and by-cause views) and the
Markdown summary rendered from the JSONL, the findings page and the baseline `wireconf findings` wrote
are searched for every rendering of every key (as is, base64, hex, percent-encoded, JSON-escaped:
wireconf/providers/secret_values.py). Prints N, the places, the hits in each output (all must be 0), how many
differences, waived differences and root causes the reports hold (each must be more than 0, or the
search proves nothing about them) and how long the recording run took.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.fake_provider import PLACES, PLANTED_KEYS, FakeProvider  # noqa: E402
from tests.integration.test_record_replay import RULES  # noqa: E402  (the e2e corpus's one-rule catalogue)
from wireconf.providers.secret_values import encoded_forms  # noqa: E402

RUNTIME_PLACES = ("authorization header", "api_key body field", "key= query", "subscription-key= query",
                  "echoed response header", "printed", "logged", "exception message")  # fmt: skip


def _case(place: str, round_: int) -> str:
    stream = place == "stream"
    options = "{additionalProperties: {stream: true}}" if stream else "{}"
    streams = ", stream: true" if stream else ""
    expect_request = f"{{model: gpt-fake, messages: [{{role: user, content: 'plant:{place}'}}]{streams}}}"
    return textwrap.dedent(
        f"""\
          - id: e2e.openai.chat.planted-{place}-{round_}
            kind: e2e
            api: openai.chat
            rules: [7.8/through-the-sdk]
            cassette: openai/planted-{place}-{round_}
            agent: {{model: {{id: gpt-fake, options: {options}}}}}
            messages: [{{role: user, content: [{{kind: text, value: 'plant:{place}'}}]}}]
            expect_request: {expect_request}
            expect: a harmless answer
        """
    )


WAIVED_CASE = "e2e.openai.chat.planted-plain-0"
BASELINE = f"""\
impl: leaky
version: 0.0.1
expected_failures: {{}}
waivers:
  - subject: request
    path: $.api_key
    change: unexpected-key
    reason: the runtime sends its key in the body, which the recording scrubs
    cases: [{WAIVED_CASE}]
"""


def _hits(text: str) -> int:
    found = 0
    for key in (PLANTED_KEYS.openai, PLANTED_KEYS.anthropic, PLANTED_KEYS.gemini):
        for _, rendering in encoded_forms(key):
            found += text.count(rendering)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="copy the run's folder (corpus, cassettes, reports) here")
    args = parser.parse_args()
    provider = FakeProvider(PLANTED_KEYS).start()
    try:
        with tempfile.TemporaryDirectory(prefix="wireconf-planted-") as tmp:
            root = Path(tmp)
            corpus = root / "corpus"
            corpus.mkdir()
            (corpus / "rules.yaml").write_text(RULES)
            cases = "".join(_case(place, n) for n in range(args.repeat) for place in ("plain", *PLACES))
            (corpus / "planted.yaml").write_text("cases:\n" + cases)
            (root / "baseline.yaml").write_text(BASELINE)
            cassettes, report, junit = root / "cassettes", root / "run.jsonl", root / "junit.xml"
            env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
            env.update(provider.environ(), PYTHONPATH=str(REPO))
            command = [sys.executable, "-m", "pytest", str(corpus), "-p", "no:cacheprovider", "-rA"]
            command += ["--impl=tests.fakes.leaky:adapter", "--record-mode=all", f"--cassettes={cassettes}"]
            command += [f"--report={report}", f"--junitxml={junit}", "-o", "junit_logging=all"]
            command += [f"--baseline={root / 'baseline.yaml'}"]
            started = time.perf_counter()
            run = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
            took = time.perf_counter() - started
            html, markdown = root / "report.html", root / "summary.md"
            wireconf = [sys.executable, "-m", "wireconf.cli"]
            rendered = [*wireconf, "report", str(report), "--html", str(html), "--markdown", str(markdown)]
            subprocess.run(
                [*rendered, "--cases", str(corpus)], cwd=root, env=env, check=True, capture_output=True
            )
            findings, baselines = root / "findings.md", root / "conformance"
            command = [*wireconf, "findings", "--impl", "tests.fakes.leaky:adapter", "--cases", str(corpus)]
            command += ["--baselines", str(baselines), "--out", str(findings)]
            found = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=True)
            written = [p for p in cassettes.rglob("*") if p.is_file()]
            outputs = {
                "disk": "".join(p.read_text(errors="replace") for p in written),
                "terminal": run.stdout + run.stderr,
                "jsonl": report.read_text(),
                "junit": junit.read_text(),
                "html": html.read_text(),
                "markdown summary": markdown.read_text(),
                "findings page": findings.read_text() + found.stdout + found.stderr,
                "findings baseline": "".join(p.read_text() for p in baselines.glob("*.yaml")),
            }
            if args.keep is not None:
                shutil.copytree(root, args.keep, dirs_exist_ok=True)
            records = [json.loads(line) for line in report.read_text().splitlines()]
            differences = sum(len(r.get("differences") or []) for r in records)
            waived = sum(len(r.get("waived") or []) for r in records)
            causes = outputs["html"].count("<tr data-cause=")
            refused = sum(1 for r in records if "RECORDING REFUSED" in (r.get("message") or ""))
    finally:
        provider.stop()
    recordings = (len(PLACES) + 1) * args.repeat
    print(
        f"N = {recordings} recordings against the fake provider "
        f"({len(provider.requests)} requests it answered)"
    )
    print(f"places planted by the server: {', '.join(PLACES)} (and none: one plain answer per round)")
    print(f"places planted by the runtime and the SDK in every recording: {', '.join(RUNTIME_PLACES)}")
    print(f"cassettes written: {len(written)}; recordings refused by the scan: {refused}")
    print(f"verdict data in the reports: {differences} differences, {waived} waived, {causes} root causes")
    for where, text in outputs.items():
        print(f"hits in {where}: {_hits(text)} ({len(text):,} characters searched)")
    print(f"recording run: {took * 1000:.0f} ms")
    total = sum(_hits(text) for text in outputs.values())
    if total:
        sys.exit(f"FAIL: {total} planted key rendering(s) reached the disk or a report")
    if not (differences and waived and causes):
        sys.exit("FAIL: the reports hold no differences, waivers or root causes to search")


if __name__ == "__main__":
    main()

"""A report as JUnit XML, for CI systems that show test results from it.

One ``testsuite`` per runtime, one ``testcase`` per case (``classname`` = impl.kind.api), with the
runtime and the corpus it was judged against as the suite's properties. A failure outside the run's
``--profile``, or one the gate lets pass (expected by the baseline, or new with
``--allow-new-failures``), is written as skipped with its reason, as pytest's own JUnit writer does for
xfail, and a listed case that now passes as a failure, so the file agrees with the run's verdict. A
failure's ``type`` is the baseline's name for it (``regression``, ``new``, ...), else ``deviation
(<tier>)``: ``deviation (spec)``, ``deviation (project)``. Skips say which they are: ``unsupported: ...``
(a capability the runtime does not declare) or ``skipped: ...``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from wireconf.core.report_text import report_text, xml_text
from wireconf.reports.matrix import Matrix, RuntimeSummary, baseline_mark

MAX_ATTRIBUTE = 1000
"""Characters of an attribute (a failure's message: its first line) kept; the element's text has the
rest, within ``wireconf.core.report_text.MAX_CHARS``."""


def render_junit(matrix: Matrix) -> str:
    root = ET.Element("testsuites", name="wireconf")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for rt in matrix.runtimes:
        suite = ET.SubElement(root, "testsuite", name=rt.label)
        _properties(suite, rt)
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        seconds = 0.0
        for record in rt.records:
            counts["tests"] += 1
            seconds += record.duration
            case = ET.SubElement(
                suite,
                "testcase",
                classname=f"{rt.impl}.{record.kind or '-'}.{record.api or '-'}",
                name=record.id,
                time=f"{record.duration:.6f}",
            )
            if record.location:
                case.set("file", record.location.rsplit(":", 1)[0])
            detail = record.diff or record.message or ""
            first = next((line for line in detail.splitlines() if line.strip()), record.status)
            mark = baseline_mark(record)
            if record.status == "failed" and record.outside_profile:
                counts["skipped"] += 1
                message = f"outside the {record.outside_profile} profile: breaks {', '.join(record.broken)}"
                ET.SubElement(case, "skipped", message=message)
                ET.SubElement(case, "system-out").text = detail
            elif record.status == "failed" and record.gate_accepted:
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=f"{mark} failure (baseline): {record.reason}")
                ET.SubElement(case, "system-out").text = detail
            elif record.status == "failed":
                counts["failures"] += 1
                kind = record.baseline or f"deviation ({record.tier or 'unruled'})"
                message = f"{mark}: {first}" if mark else first
                node = ET.SubElement(case, "failure", message=message, type=kind)
                why = f"baseline: {record.reason}\n" if record.baseline and record.reason else ""
                tier = f" (tier: {record.tier or 'none: unruled'})"
                rules = ", ".join(record.broken) or "no rule requires this"
                node.text = f"rules broken: {rules}{tier}\n{why}{record.message or detail}"
            elif record.status == "error":
                counts["errors"] += 1
                ET.SubElement(case, "error", message=first).text = record.message or detail
            elif record.status in ("unsupported", "skipped"):
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=f"{record.status}: {record.reason or record.status}")
            elif record.baseline == "fixed":
                counts["failures"] += 1
                listed = f" ({record.reason})" if record.reason else ""
                message = f"listed in the baseline{listed}, now passes: update the baseline"
                ET.SubElement(case, "failure", message=message, type="fixed").text = record.message
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        suite.set("time", f"{seconds:.3f}")
    for key, value in totals.items():
        root.set(key, str(value))
    _writable(root)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _writable(root: ET.Element) -> None:
    """Every text and attribute of the tree bounded and with what XML 1.0 forbids escaped (ANSI colour
    codes, U+FFFE, lone surrogates a runtime put in a result), so that the file stays well-formed:
    ElementTree escapes markup, not characters XML cannot hold."""
    for element in root.iter():
        if element.text:
            element.text = xml_text(report_text(element.text))
        for name, value in element.attrib.items():
            element.set(name, xml_text(report_text(value, MAX_ATTRIBUTE)))


def _properties(suite: ET.Element, rt: RuntimeSummary) -> None:
    """The runtime and what it was judged against, as JUnit properties (CI systems show them)."""
    props = ET.SubElement(suite, "properties")
    values = {
        "wireconf.impl": rt.impl,
        "wireconf.version": rt.version,
        "wireconf.python": rt.python,
        "wireconf.corpus": rt.corpus,
        "wireconf.corpus.version": " + ".join(sorted({r.corpus or "unversioned" for r in rt.records})),
        "wireconf.corpus.hash": " + ".join(sorted({r.corpus_hash or "unknown" for r in rt.records})),
    }
    for name, value in values.items():
        if value is not None:
            ET.SubElement(props, "property", name=name, value=value)

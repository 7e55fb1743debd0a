"""A report as JUnit XML, for CI systems that show test results from it.

One ``testsuite`` per runtime, one ``testcase`` per case (``classname`` = impl.kind.api). A failure the
baseline expects, or one outside the run's ``--profile``, is written as skipped with its reason, as
pytest's own JUnit writer does for xfail, so the file agrees with the run's verdict. A failure's
``type`` names its tier: ``deviation (spec)``, ``deviation (project)``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from harness.reports.matrix import Matrix


def render_junit(matrix: Matrix) -> str:
    root = ET.Element("testsuites", name="wireconf")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for rt in matrix.runtimes:
        suite = ET.SubElement(root, "testsuite", name=rt.label)
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
            if record.status == "failed" and record.baseline == "expected":
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=f"known failure (baseline): {record.reason}")
                ET.SubElement(case, "system-out").text = detail
            elif record.status == "failed" and record.outside_profile:
                counts["skipped"] += 1
                message = f"outside the {record.outside_profile} profile: breaks {', '.join(record.broken)}"
                ET.SubElement(case, "skipped", message=message)
                ET.SubElement(case, "system-out").text = detail
            elif record.status == "failed":
                counts["failures"] += 1
                node = ET.SubElement(
                    case, "failure", message=first, type=f"deviation ({record.tier or 'spec'})"
                )
                node.text = f"rules broken: {', '.join(record.broken)}\n{record.message or detail}"
            elif record.status == "error":
                counts["errors"] += 1
                ET.SubElement(case, "error", message=first).text = record.message or detail
            elif record.status in ("unsupported", "skipped"):
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=record.reason or record.status)
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        suite.set("time", f"{seconds:.3f}")
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"

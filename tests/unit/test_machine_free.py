"""What a runtime's text says of this machine's install locations reads the same on every machine."""

from wireconf.core.report_text import machine_free


def test_install_locations_are_written_from_the_package_folder_on():
    text = (
        'File "/home/ci/checkout/.venv/lib/python3.11/site-packages/litellm/main.py", line 2871\n'
        "at f (/srv/w/.cache/ai-sdk/781a/node_modules/@ai-sdk/google/dist/index.mjs:10:5)\n"
        'File "/usr/lib/python3/dist-packages/yaml/__init__.py"'
    )
    assert machine_free(text) == (
        'File "site-packages/litellm/main.py", line 2871\n'
        "at f (node_modules/@ai-sdk/google/dist/index.mjs:10:5)\n"
        'File "dist-packages/yaml/__init__.py"'
    )
    assert machine_free("a path of the runtime's own: /srv/app/main.py") == (
        "a path of the runtime's own: /srv/app/main.py"
    )


def test_a_frames_file_is_never_an_absolute_path_of_this_machine():
    import json
    import os
    import sys

    from wireconf.core.report_text import short_path

    assert (
        short_path(json.__file__)
        == f"python{sys.version_info.major}.{sys.version_info.minor}/json/__init__.py"
    )
    assert (
        short_path(os.path.abspath("wireconf/core/errors.py")) == "wireconf/core/errors.py"
    )  # the checkout's
    assert short_path("/srv/elsewhere/app/main.py") == "…/app/main.py"
    assert short_path("<frozen runpy>") == "<frozen runpy>"


def test_an_adapters_traceback_through_the_standard_library_names_no_machine_folder():
    """A runtime's exception raised inside the standard library (json) kept the interpreter's absolute
    folder in every report and the findings page (issue 32)."""
    import json
    import sys

    from wireconf.kinds.base import adapter_traceback

    try:
        json.dumps({"x": object()})
    except TypeError as exc:
        text = adapter_traceback(exc)
    assert 'File "python3.' in text and "json/encoder.py" in text, text
    assert sys.base_prefix not in text and sys.prefix not in text, text


def test_the_findings_page_names_no_folder_of_the_machines_that_made_it():
    import os
    import tempfile

    from tests.conftest import CASES
    from wireconf.corpus.rules import load_catalogue
    from wireconf.reports.findings import render_findings
    from wireconf.reports.jsonl import CaseRecord

    places = [os.getcwd(), tempfile.gettempdir(), os.path.expanduser("~")]
    diff = "\n".join(f'  File "{place}/somewhere/module.py", line 3' for place in places)
    message = f"error: the cassettes folder file://{os.getcwd()}/cassettes changed"
    records = [
        CaseRecord("rt", "1", "a", "wire", "openai.chat", [], "failed", 0.0, diff=diff),
        CaseRecord("rt", "1", "b", "wire", "openai.chat", [], "error", 0.0, message=message),
    ]
    page = render_findings(records, load_catalogue(CASES / "rules.yaml"), [], "wireconf findings", 2)
    assert "somewhere/module.py" in page and "cassettes changed" in page
    for place in places:
        assert place + "/" not in page, place
    assert "file://" not in page

"""docs/adding-an-api.md and docs/adding-a-kind.md count the files a new api or kind touches: the count
they state is their table's, every file of the harness they name exists, and the one-line edits they
promise are one line (each registry's ``BUILTIN`` lists every module of its folder). That no other
module of the harness needs an edit is held by tests/unit/test_providers.py (apis) and
tests/unit/test_kind_names.py (kinds)."""

from __future__ import annotations

import importlib
import re

import pytest

from tests.conftest import REPO
from wireconf.kinds import registry as kinds_registry
from wireconf.providers import registry as providers_registry

PAGES = ("adding-an-api.md", "adding-a-kind.md")


def table(page: str) -> list[tuple[list[str], str]]:
    """Each row of the page's table of files: the files it names and how they are touched."""
    text = (REPO / "docs" / page).read_text(encoding="utf-8")
    section = text[text.index("| file | new or edited |") :]
    rows = []
    for line in section.splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows.append((re.findall(r"`([^`]+)`", cells[0]), cells[1]))
    return rows


@pytest.mark.parametrize("page", PAGES)
def test_the_count_is_the_tables(page):
    text = (REPO / "docs" / page).read_text(encoding="utf-8")
    stated = re.search(r"(\d+) files edited or regenerated.*? and (\d+) created", text, re.S)
    assert stated, page
    rows = table(page)
    created = sum(len(files) for files, how in rows if how.startswith("new"))
    edited = sum(len(files) for files, how in rows if not how.startswith("new"))
    assert (int(stated.group(1)), int(stated.group(2))) == (edited, created)


@pytest.mark.parametrize("page", PAGES)
def test_the_files_of_the_harness_it_edits_exist(page):
    named = [f for files, how in table(page) if not how.startswith("new") for f in files]
    harness = [f for f in named if f.startswith("wireconf/") and "<" not in f]
    assert harness and [f for f in harness if not (REPO / f).exists()] == []


@pytest.mark.parametrize(
    ("registry", "folder", "record"),
    [(kinds_registry, "kinds", "KIND"), (providers_registry, "providers", "PROVIDER")],
)
def test_a_new_module_is_one_line_of_its_registry(registry, folder, record):
    """``BUILTIN`` lists exactly the modules of the folder that hold a record: adding one is one line."""
    modules = {
        f"wireconf.{folder}.{path.stem}"
        for path in (REPO / "wireconf" / folder).glob("*.py")
        if hasattr(importlib.import_module(f"wireconf.{folder}.{path.stem}"), record)
    }
    assert modules and set(registry.BUILTIN) == modules

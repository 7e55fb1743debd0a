"""The build hook that puts the corpus in the wheel; everything else is declared in pyproject.toml.

The corpus lives at the top of the repository (``cases/``, ``cassettes/``), where its authors and
``pytest cases`` use it. A wheel needs it inside a package, so building copies both folders into
``wireconf/_corpus/`` of the build (never into the source tree, so nothing is kept twice in git);
``wireconf.corpus.installed`` finds it there. An editable install (``pip install -e .``) copies
nothing: the harness then runs from the checkout and finds the checkout's own folders.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
CORPUS_FOLDERS = ("cases", "cassettes")
PACKAGED = Path("wireconf") / "_corpus"
SKIPPED = shutil.ignore_patterns("__pycache__", "*.pyc", ".*")


class BuildPyWithCorpus(build_py):
    """``build_py`` plus a copy of the corpus folders into the built harness package."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for folder in CORPUS_FOLDERS:
            source = HERE / folder
            if not (source.is_dir()):
                raise SystemExit(f"setup.py: the corpus folder {source} is missing; the wheel needs it")
            target = Path(self.build_lib) / PACKAGED / folder
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(source, target, ignore=SKIPPED)


setup(cmdclass={"build_py": BuildPyWithCorpus})

"""The JavaScript client installs portably (issue 34 item 5): ``wireconf exec-client --pack vendor``
writes the tarball into a project, and real ``npm install`` of it records a relative ``file:`` path
in package.json (no path into a cache) and the tarball's ``integrity`` in the lockfile, so that a copy
of the project on another machine (another folder here) installs the same bytes with ``npm ci``. The
package's manifest says exactly the files the tarball holds (``npm pack --dry-run``)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys

import pytest

from wireconf.exec_protocol.js_client import PACKAGE, _package_files, tarball_bytes

NPM = shutil.which("npm")
needs_npm = pytest.mark.skipif(NPM is None, reason="npm is not installed")
QUIET = ["--no-audit", "--no-fund", "--offline", "--loglevel=error"]


def _npm(*args: str, cwd, env=None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [NPM or "npm", *args], cwd=cwd, capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 0, f"npm {' '.join(args)}: {done.stdout}{done.stderr}"
    return done


@needs_npm
def test_a_packed_client_installs_from_a_relative_path_with_its_integrity_and_again_elsewhere(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "package.json").write_text(
        json.dumps({"name": "my-runtime", "version": "1.0.0", "private": True})
    )
    command = [
        sys.executable,
        "-c",
        "from wireconf.cli import main; main()",
        "exec-client",
        "--pack",
        "vendor",
    ]
    done = subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=120, check=True)
    name, data = tarball_bytes()
    assert (project / "vendor" / name).read_bytes() == data
    line = done.stdout.strip().splitlines()[-1]
    assert line.endswith(f"npm install ./vendor/{name}"), done.stdout

    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "npm_config_cache": str(tmp_path / "npm-cache")}
    _npm("install", f"./vendor/{name}", *QUIET, cwd=project, env=env)
    manifest = json.loads((project / "package.json").read_text())
    assert manifest["dependencies"] == {"@wireconf/exec": f"file:vendor/{name}"}  # relative: no cache path
    lock = json.loads((project / "package-lock.json").read_text())
    entry = lock["packages"]["node_modules/@wireconf/exec"]
    assert entry["integrity"] == "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()

    moved = tmp_path / "elsewhere" / "project"
    shutil.copytree(project, moved, ignore=shutil.ignore_patterns("node_modules"))
    shutil.rmtree(project)  # nothing of the first place is left to lean on
    _npm("ci", *QUIET, cwd=moved, env=env)
    check = "import('@wireconf/exec').then((m) => console.log(typeof m.serve))"
    ran = subprocess.run(["node", "-e", check], cwd=moved, capture_output=True, text=True, timeout=60)
    assert ran.stdout.strip() == "function", ran.stderr


@needs_npm
def test_npm_pack_lists_exactly_the_files_of_the_tarball(tmp_path):
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "npm_config_cache": str(tmp_path / "npm-cache")}
    done = _npm("pack", "--dry-run", "--json", "--loglevel=error", cwd=PACKAGE, env=env)
    listed = sorted(entry["path"] for entry in json.loads(done.stdout)[0]["files"])
    assert listed == sorted(path.relative_to(PACKAGE).as_posix() for path in _package_files())
    manifest = json.loads((PACKAGE / "package.json").read_text())
    assert manifest["publishConfig"] == {"access": "public"}
    assert manifest["repository"]["directory"] == "wireconf/exec_protocol/js"

"""Text a runtime supplied (its exceptions, stderr, captured output, the results a diff quotes), made fit
for every report that shows it: the terminal, the ``--report`` JSON lines, JUnit XML, Markdown.

A runtime can hand over any string: hundreds of megabytes of stderr on one line, a lone surrogate that
UTF-8 cannot encode, control characters and non-characters that XML 1.0 forbids. Reports must survive
each of them and stay readable, so

- ``bounded`` cuts a text to ``MAX_CHARS`` and says how much was cut (``… [cut: N more characters]``);
- ``encodable`` writes each lone surrogate as its escape (``\\udc80``), so that the text encodes as UTF-8;
- ``xml_text`` writes each character XML 1.0 forbids (C0 controls but tab and line breaks, ESC of ANSI
  colour codes, surrogates, U+FFFE, U+FFFF) as its escape;
- ``path_part`` makes a runtime's name one safe part of a file name (``../../x`` cannot leave the folder).

Keys are redacted before a text is cut (``wireconf.providers.secret_values.redact``), never after: a cut
through a key would leave its start unredacted.
"""

from __future__ import annotations

import os
import re
import sys
import sysconfig
import tempfile
from functools import lru_cache
from pathlib import Path

MAX_CHARS = 20_000
"""Characters of one runtime-supplied text kept in a report (an exception message, a stream of
captured output, a failure's report). A diff is bounded by its own limits, far below this."""

_SURROGATE = re.compile("[\ud800-\udfff]")
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def cut_note(count: int) -> str:
    """What a report says where it cut ``count`` characters off a text."""
    return f"… [cut: {count:,} more characters]"


def bounded(text: str, limit: int = MAX_CHARS) -> str:
    """``text`` cut to ``limit`` characters, with what was cut said at the end."""
    return text if len(text) <= limit else text[:limit] + cut_note(len(text) - limit)


def encodable(text: str) -> str:
    """``text`` with every lone surrogate written as its escape: encodable as UTF-8."""
    return _SURROGATE.sub(_escape, text) if _SURROGATE.search(text) else text


def xml_text(text: str) -> str:
    """``text`` with every character XML 1.0 forbids written as its escape."""
    return _NOT_XML.sub(_escape, text) if _NOT_XML.search(text) else text


def report_text(text: str, limit: int = MAX_CHARS) -> str:
    """A runtime-supplied text as every report may carry it: encodable and bounded."""
    return bounded(encodable(text), limit)


_UNSAFE_IN_PATH = re.compile(r"[^A-Za-z0-9_.-]+")


def path_part(name: str) -> str:
    """``name`` as one component of a path: runs of anything but letters, digits, ``_``, ``.`` and
    ``-`` become ``_``, and leading or trailing dots and underscores go (no ``..``, no hidden file);
    empty when nothing is left."""
    return _UNSAFE_IN_PATH.sub("_", name).strip("._")


_INSTALLED = re.compile(r"/(site-packages|dist-packages|node_modules)/")
_PATH_START = re.compile(r"[\s\"'(]")
_MAX_PREFIX = 4096
"""How far back a path's start is looked for from its install folder (a path is never longer): the
scan stays linear in the text whatever a runtime puts in it."""


def machine_free(text: str) -> str:
    """``text`` without this machine's install locations: a runtime's message or traceback names files
    under site-packages (LiteLLM embeds a traceback in its errors; an exec runtime sends its own) or an
    npm install's node_modules, which read ``site-packages/…`` and ``node_modules/…`` on every machine,
    so a failure, a baseline reason and the findings page are the same wherever they are made."""
    out: list[str] = []
    done = 0
    for match in _INSTALLED.finditer(text):
        if match.start() < done:
            continue
        window = text[max(done, match.start() - _MAX_PREFIX) : match.start()]
        starts = [m.end() for m in _PATH_START.finditer(window)]
        begin = match.start() - len(window) + (starts[-1] if starts else 0)
        out.append(text[done:begin])
        out.append(f"{match.group(1)}/")
        done = match.end()
    out.append(text[done:])
    return "".join(out)


def short_path(filename: str) -> str:
    """A traceback frame's file as it reads on every machine: from its install folder on
    (``site-packages/litellm/main.py``, ``node_modules/…``), the standard library's from its version's
    folder (``python3.11/json/encoder.py``), else relative to the folder it was imported from (an entry
    of ``sys.path``: the checkout, a ``src`` folder) or to the working directory; a file under none of
    them keeps only its folder's and its own name (``…/app/main.py``). Never an absolute path of this
    machine: a failure, a baseline reason and the findings page read the same wherever they are made."""
    return _short_path(filename, os.getcwd(), tuple(sys.path))


@lru_cache(maxsize=4096)
def _short_path(filename: str, cwd: str, search: tuple[str, ...]) -> str:
    """Resolving asks the file system about every part of the path: once per file, folder and path."""
    posix = filename.replace("\\", "/")
    marker = max(posix.rfind(f"/{folder}/") for folder in ("site-packages", "dist-packages", "node_modules"))
    if marker >= 0:
        return posix[marker + 1 :]
    if not os.path.isabs(filename):
        return posix  # <frozen …>, <string>, already relative
    path = _resolved(filename)
    stdlib = {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib")}
    for folder in sorted(stdlib, key=len, reverse=True):
        inside = _relative(path, _resolved(folder))
        if inside is not None:
            return f"{Path(folder).name}/{inside}"
    bases = [cwd, *(entry for entry in search if entry and os.path.isabs(entry))]
    found = [r for r in (_relative(path, _resolved(base)) for base in bases) if r is not None]
    if found:
        return min(found, key=len)
    return "…/" + "/".join(Path(path).parts[-2:])


def _resolved(path: str) -> Path:
    try:
        return Path(path).resolve()
    except OSError:
        return Path(path)


def _relative(path: Path, base: Path) -> str | None:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return None


def machine_paths_removed(text: str) -> str:
    """``text`` (a page built from reports) with this machine's folders taken out: install locations
    (``machine_free``), then the working directory, the temporary folder, the interpreter's prefixes and
    the home directory, as paths and as ``file://`` URLs, each written as the place it stands for
    (``<cwd>/``, ``<tmp>/``, ``<python>/``, ``~/``): what a report carries from wherever its run was."""
    text = machine_free(text)
    for prefix, name in _machine_prefixes():
        if prefix in text:
            text = text.replace(f"file://{prefix}", name).replace(prefix, name)
    return text


def _machine_prefixes() -> list[tuple[str, str]]:
    """This machine's folders (with their trailing separator), longest first."""
    places = {
        os.getcwd(): "<cwd>/",
        tempfile.gettempdir(): "<tmp>/",
        sys.prefix: "<python>/",
        sys.base_prefix: "<python>/",
        os.path.expanduser("~"): "~/",
    }
    found = []
    for folder, name in places.items():
        for form in {folder, str(_resolved(folder))}:
            if len(form) > 1:  # never "/" alone
                found.append((form.rstrip("/") + "/", name))
    return sorted(found, key=lambda item: len(item[0]), reverse=True)

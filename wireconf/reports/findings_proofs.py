"""Which explanations of the findings page their reproduction proves (issue 36, item 4).

An explanation says which function of the runtime makes the difference (`` `module:qualname` ``, as the
baselines write them). ``wireconf repro --verify`` runs the reproduction of each root cause of a runtime
and records, per root cause, how the script exited and which of the functions its explanation names
were called while it ran (``wireconf.repro.verify``); the file is kept beside the baselines
(``<baselines>/proofs/<runtime>.yaml``) and read here. An explanation is *proved* when its root cause's
reproduction fails as the finding says (exit 1, the rule printed) and every function it names ran on the
way: the deviation is the runtime's own, shown without wireconf, through the code the explanation
blames. A proof counts only for the explanation and the runtime version it was made with (the text's
hash and the version are kept with it), so a rewritten explanation or a new release is unproved until
verified again.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from wireconf.core.errors import WireconfError

PROOFS_DIR = "proofs"
NAMED = re.compile(r"`([A-Za-z_][\w.]*|packages/[\w./-]+\.ts):([A-Za-z_$][\w$.]*)`")
"""A function an explanation names: `` `package.module:Class.method` `` (Python), or a workspace
source's (Prompty's TypeScript runtime): `` `packages/anthropic/src/processor.ts:streamGenerator` ``."""
NAMED_JS = re.compile(r"`(@[\w.-]+/[\w.-]+|[a-z][\w.-]*)` `([A-Za-z_$][\w$.]*)`")
"""A function an explanation names in a JavaScript runtime: `` `@ai-sdk/anthropic` `prepareTools` ``
(the npm package, then the function), written ``@ai-sdk/anthropic:prepareTools``."""


class ProofsError(WireconfError):
    """A proofs file that cannot be read; the message names it."""


def named_functions(explanation: str, javascript: bool = True) -> list[str]:
    """The functions ``explanation`` names (``module:qualname``; an npm package's: ``package:name``), in
    order, once each. A Python runtime's text is read without the npm spelling (``javascript=False``):
    "a `google.genai` `Blob`" names a type there, not a function of a package."""
    patterns = (NAMED, NAMED_JS) if javascript else (NAMED,)
    found = [
        (m.start(), f"{m.group(1)}:{m.group(2)}")
        for pattern in patterns
        for m in pattern.finditer(explanation)
    ]
    return list(dict.fromkeys(name for _, name in sorted(found)))


def text_hash(explanation: str) -> str:
    return hashlib.sha256(explanation.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Proof:
    """One root cause's reproduction, run: the case and place it reproduces, how it exited, whether it
    printed the rule, and for the explanation it was run for (its hash), which named functions ran."""

    case: str
    rule: str
    place: str
    exit: int
    shown: bool
    explanation: str
    called: dict[str, bool]

    def proves(self, explanation: str) -> bool:
        """Whether this run proves ``explanation``: made for that text, the deviation shown, and every
        function the text names called."""
        return (
            self.explanation == text_hash(explanation)
            and self.exit == 1
            and self.shown
            and bool(self.called)
            and all(self.called.values())
        )


Key = tuple[str, str, str, str]
"""A root cause's reproduction: the runtime's version, the case, the rule and the place (generic)."""


def proofs_path(baselines: Path, runtime: str) -> Path:
    return baselines / PROOFS_DIR / f"{runtime}.yaml"


def load_proofs(path: Path) -> dict[Key, Proof]:
    """The proofs of ``path`` by ``Key`` (none when there is no file)."""
    if not path.is_file():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        version = str(data["version"])
        found = {}
        for item in data.get("proofs") or []:
            proof = Proof(
                str(item["case"]),
                str(item["rule"]),
                str(item["place"]),
                int(item["exit"]),
                bool(item["shown"]),
                str(item["explanation"]),
                {str(k): bool(v) for k, v in (item.get("called") or {}).items()},
            )
            found[(version, proof.case, proof.rule, proof.place)] = proof
    except (OSError, yaml.YAMLError, KeyError, TypeError, ValueError) as error:
        raise ProofsError(f"{path}: not a proofs file ({type(error).__name__}: {error})") from error
    return found


def load_impl_proofs(baselines: Path, impl: str) -> dict[Key, Proof]:
    """The proofs of every runtime whose adapter is ``impl``, by ``Key``: its own file, and those of the
    runtimes of runtimes.yaml judged through it (luthien's two commits: each file names its ``impl``)."""
    found = load_proofs(proofs_path(baselines, impl))
    for path in sorted((baselines / PROOFS_DIR).glob("*.yaml")):
        if path == proofs_path(baselines, impl):
            continue
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as error:
            raise ProofsError(f"{path}: not a proofs file ({type(error).__name__}: {error})") from error
        if isinstance(data, dict) and data.get("impl") == impl:
            found.update(load_proofs(path))
    return found


def dump_proofs(runtime: str, version: str, proofs: list[Proof], impl: str | None = None) -> str:
    """The file's text: the runtime, its adapter when that has another name (``impl``), its version and
    each proof, sorted (a rerun rewrites it alike)."""
    items = [
        {
            "case": p.case,
            "rule": p.rule,
            "place": p.place,
            "exit": p.exit,
            "shown": p.shown,
            "explanation": p.explanation,
            "called": dict(sorted(p.called.items())),
        }
        for p in sorted(proofs, key=lambda p: (p.case, p.rule, p.place))
    ]
    head = (
        f"# Written by `wireconf repro --verify` for {runtime} {version}: each root cause's reproduction\n"
        "# run, its exit and which functions its explanation names ran (wireconf.reports.findings_proofs).\n"
    )
    named = {"runtime": runtime} if impl in (None, runtime) else {"runtime": runtime, "impl": impl}
    return head + yaml.safe_dump(
        {**named, "version": version, "proofs": items},
        sort_keys=False,
        allow_unicode=True,
        width=110,
    )

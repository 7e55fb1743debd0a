"""Build (or check) the pinned provider contracts, ``wireconf/providers/contracts/<provider>.json``.

    python tools/provider_contracts.py [--check] [openai] [anthropic] [google]

OpenAI's is made from its OpenAPI document in shared/third-party (``WIRECONF_THIRD_PARTY``); Anthropic's
and Google's from the pinned packages (``contract_build.ANTHROPIC_PIN``, ``GOOGLE_PINS``), installed with
pip into ``.cache/contract-sources/<provider>`` (without their dependencies: only the types are read)
and read in a process of their own, so that the SDK versions the harness itself uses never matter.
``--check`` builds each and compares it with the checked-in file (exit 1 on a difference) instead of
writing it. ``WIRECONF_CONTRACT_SOURCES`` names another folder for the pinned packages.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from wireconf.providers import contract_build  # noqa: E402
from wireconf.providers.contract import CONTRACTS_DIR  # noqa: E402

ANTHROPIC_IMPORTS = ("httpx==0.28.1", "httpcore==1.0.9")
"""What the pinned SDK imports that the project's environment no longer carries (its own SDKs moved to
httpx2, and no runtime in it brings httpx any more): installed beside the pin, without dependencies too."""
PINS = {"anthropic": (contract_build.ANTHROPIC_PIN, *ANTHROPIC_IMPORTS), "google": contract_build.GOOGLE_PINS}


def sources_dir() -> Path:
    return Path(os.environ.get("WIRECONF_CONTRACT_SOURCES") or ROOT / ".cache" / "contract-sources")


def fetch(provider: str) -> Path:
    """The folder holding ``provider``'s pinned packages (installed there once)."""
    target = sources_dir() / provider
    stamp = target / "PINS"
    pins = "\n".join(PINS[provider])
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == pins:
        return target
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--upgrade",
            "--target",
            str(target),
            *PINS[provider],
        ],
        check=True,
    )
    stamp.write_text(pins, encoding="utf-8")
    return target


def build(provider: str) -> str:
    if provider == "openai":
        third_party = os.environ.get("WIRECONF_THIRD_PARTY")
        if not third_party:
            sys.exit("WIRECONF_THIRD_PARTY is not set: OpenAI's OpenAPI document lives in shared/third-party")
        document = Path(third_party) / contract_build.OPENAI_DOCUMENT
        return contract_build.dumps(contract_build.openai_contract(document))
    target = fetch(provider)
    code = (
        "import sys; from wireconf.providers.contract_build import BUILDERS, dumps; "
        f"sys.stdout.write(dumps(BUILDERS[{provider!r}]()))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), str(ROOT)])}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{provider}: the build failed:\n{done.stderr}")
    return done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="compare with the checked-in files, write nothing"
    )
    parser.add_argument("providers", nargs="*", default=["openai", "anthropic", "google"])
    args = parser.parse_args()
    status = 0
    for provider in args.providers:
        path = CONTRACTS_DIR / f"{provider}.json"
        text = build(provider)
        if args.check:
            same = path.is_file() and path.read_text(encoding="utf-8") == text
            print(f"{provider}: {'matches' if same else 'DIFFERS from'} {path.relative_to(ROOT)}")
            status |= 0 if same else 1
        else:
            path.write_text(text, encoding="utf-8")
            print(f"{provider}: wrote {path.relative_to(ROOT)} ({len(text) // 1024} KiB)")
    return status


if __name__ == "__main__":
    sys.exit(main())

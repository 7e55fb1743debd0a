"""``python -m wireconf.envs RUNTIME...``: make (or reuse) the environment of each runtime that
conformance/runtimes.yaml gives ``packages``, and print its Python, one a line (an npm one's folder), so
that a command can name it: ``--impl "exec:$(.venv/bin/python -m wireconf.envs agentflow) -m
wireconf.exec_protocol.serve agentflow"``. ``.ci/run`` calls it to learn whether agentflow's and
LlamaIndex's environments are made before it requires them.

Exits 0 when every one is made, 3 when one needs a Python that is not installed here (nothing else
failed), 2 for a runtime runtimes.yaml does not give packages, else 1."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from wireconf.core.errors import WireconfError
from wireconf.envs.build import CHECKOUT, EnvBuildError, NoInterpreterError, make
from wireconf.envs.spec import NPM, EnvSpec, parse_env

NO_INTERPRETER = 3


def specs(path: Path) -> dict[str, EnvSpec]:
    """The environments ``path`` (a runtimes.yaml) declares, by runtime."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    found = {}
    for name, entry in (data.get("runtimes") or {}).items():
        spec, _ = parse_env(str(name), entry, str(path))
        if spec is not None:
            found[str(name)] = spec
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m wireconf.envs", description=__doc__.split("\n\n")[0] if __doc__ else None
    )
    parser.add_argument("runtime", nargs="+", help="a runtime of runtimes.yaml that has packages")
    parser.add_argument(
        "--runtimes",
        default=str(CHECKOUT / "conformance" / "runtimes.yaml"),
        help="the runtimes file (default: the checkout's conformance/runtimes.yaml)",
    )
    args = parser.parse_args(argv)
    try:
        declared = specs(Path(args.runtimes))
    except WireconfError as error:
        print(f"wireconf.envs: {error}", file=sys.stderr)
        return 2
    unknown = [name for name in args.runtime if name not in declared]
    if unknown:
        print(f"wireconf.envs: {', '.join(unknown)}: not among {sorted(declared)}", file=sys.stderr)
        return 2
    status = 0
    for name in args.runtime:
        try:
            env = make(declared[name])
        except NoInterpreterError as error:
            print(f"wireconf.envs: {error.message}", file=sys.stderr)
            status = status or NO_INTERPRETER
            continue
        except EnvBuildError as error:
            print(f"wireconf.envs: {name}: {error.message}", file=sys.stderr)
            status = 1
            continue
        print(env.folder if declared[name].ecosystem == NPM else env.python)
    return status


if __name__ == "__main__":
    sys.exit(main())

"""Run a matrix of jobs (one per runtime and release) on the cores there are, a line of progress as each
finishes, and split across CI machines (``--shard I/N``)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import TextIO, TypeVar

from wireconf.core.errors import WireconfError

T = TypeVar("T")
R = TypeVar("R")


class ShardError(WireconfError):
    """A ``--shard`` that is not ``I/N`` with 1 <= I <= N."""


def default_jobs() -> int:
    """The cores this process may run on (its affinity, else the CPU count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def parse_shard(text: str) -> tuple[int, int]:
    index, sep, total = text.partition("/")
    if not (sep and index.isdigit() and total.isdigit() and 1 <= int(index) <= int(total)):
        raise ShardError(f"--shard {text!r}: expected I/N with 1 <= I <= N (e.g. 2/3)")
    return int(index), int(total)


def shard(items: Sequence[T], index: int, total: int) -> list[T]:
    """The ``index``-th of ``total`` shares of ``items`` (every ``total``-th item from ``index - 1``): the
    shares are disjoint, cover ``items``, and each gets a mix of runtimes rather than one's releases."""
    return list(items[index - 1 :: total])


def run_parallel(
    items: Sequence[T],
    work: Callable[[T], R],
    describe: Callable[[T, R], str],
    jobs: int,
    out: TextIO | None = None,
) -> list[R]:
    """``work`` on each item, ``jobs`` at a time (threads: each job waits on a process of its own), a
    line ``[k/n] <describe> (<seconds> s)`` written to ``out`` (stderr) as each finishes; the results in
    the order of ``items``."""
    stream = out or sys.stderr
    results: dict[int, R] = {}
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(_timed, work, item): n for n, item in enumerate(items)}
        for finished, future in enumerate(as_completed(futures), 1):
            n = futures[future]
            result, seconds = future.result()
            results[n] = result
            line = f"[{finished}/{len(items)}] {describe(items[n], result)} ({seconds:.0f} s"
            stream.write(f"{line}, {time.monotonic() - started:.0f} s in all)\n")
            stream.flush()
    return [results[n] for n in range(len(items))]


def _timed(work: Callable[[T], R], item: T) -> tuple[R, float]:
    started = time.monotonic()
    return work(item), time.monotonic() - started

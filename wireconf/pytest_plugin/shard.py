"""``--shard i/n``: run one of n disjoint parts of the collection, the same on every machine.

An item belongs to shard ``crc32(node id) mod n``: stable across machines, processes and Python
versions (unlike ``hash()``), and independent of the order or the other filters of a collection, so
that n machines given the same command run every item exactly once.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

from wireconf.core.errors import WireconfError

_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


class ShardError(WireconfError, ValueError):
    """A ``--shard`` that is not ``i/n`` with ``1 <= i <= n`` (pytest shows it as a usage error)."""


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based, as written
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, node_id: str) -> bool:
        return zlib.crc32(node_id.encode("utf-8")) % self.count == self.index - 1


def parse_shard(text: str) -> Shard:
    """``"2/4"`` → ``Shard(2, 4)``; raises ``ShardError`` with what is wrong."""
    match = _SPEC.match(text)
    if not match:
        raise ShardError(f"--shard {text!r}: expected i/n, e.g. 1/4")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 1 <= index <= count:
        raise ShardError(f"--shard {text!r}: i must be between 1 and n (n >= 1)")
    return Shard(index, count)

"""The stream processor's state (seed 002): blocks, the current block, the block just completed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Block:
    """A content block (``kind == "content"``) or a tool-call block (``kind == "tool_call"``)."""

    id: str
    kind: str
    content: str = ""
    name: str = ""
    arguments: str = ""
    index: int = 0
    is_complete: bool = False

    def as_dict(self) -> dict[str, Any]:
        if self.kind == "content":
            return {
                "id": self.id,
                "kind": "content",
                "content": self.content,
                "is_complete": self.is_complete,
            }
        return {
            "id": self.id,
            "kind": "tool_call",
            "name": self.name,
            "arguments": self.arguments,
            "index": self.index,
            "is_complete": self.is_complete,
        }


@dataclass
class StreamState:
    blocks: list[Block] = field(default_factory=list)
    current_block: Block | None = None
    just_completed: Block | None = None
    finish_reason: str | None = None

    def snapshot(self) -> dict[str, Any]:
        """What a policy callback sees at this moment, as plain data."""
        return {
            "blocks": [b.as_dict() for b in self.blocks],
            "current_block": None if self.current_block is None else self.current_block.id,
            "just_completed": None if self.just_completed is None else self.just_completed.id,
            "finish_reason": self.finish_reason,
        }

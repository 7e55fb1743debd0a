"""An adapter whose ``process`` wants an argument the contract does not pass (as an adapter written for
``endpoint`` served by a harness that passes none): the call itself raises ``TypeError``, the method
never runs, and neither does any runtime."""

from __future__ import annotations

from typing import Any


class Adapter:
    name = "signature-mismatch"
    version = "0"

    def capabilities(self) -> set[str]:
        return {"process:openai.chat"}

    def process(self, api: str, agent: dict[str, Any], response: Any, extra: Any) -> Any:
        raise AssertionError("never called: the call fails before the method runs")


adapter = Adapter()

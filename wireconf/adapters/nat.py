"""``--impl nat``: NVIDIA NeMo Agent Toolkit's ATOF payload extractors (``nat.atof.extractors``, from
PyPI's ``nvidia-nat-atif``; ``pip install 'wireconf[nat]'``) under the ``extract`` contract.

The adapter does what a converter does at start-up (installs the Anthropic and Gemini built-ins) and
then only routes: a bare body is extracted with the api's built-in schema, an ATOF event through the
registry resolvers by its own ``data_schema`` (docs/seeds.md). Results are passed on untouched.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from wireconf.adapter_contract import capability, served_kinds
from wireconf.adapters._optional import optional_module
from wireconf.core.untyped import JSON
from wireconf.reference_impl.payload_extractors.routing import API_SCHEMAS, route


class NatAdapter:
    name = "nat"
    adapter_modules = ("wireconf.adapters.nat", "wireconf.reference_impl.payload_extractors.routing")
    """This adapter's own code, the reference's routing included (``wireconf.core.raise_site``)."""

    def __init__(self, module: ModuleType | None = None) -> None:
        if module is None:
            module, self.version, self.unavailable = optional_module(
                "nat.atof.extractors", "nvidia-nat-atif", "pip install 'wireconf[nat]'"
            )
        else:
            self.version, self.unavailable = getattr(module, "__version__", "test"), None
        self._nat = module
        if module is not None:
            module.register_anthropic_messages_v1()
            module.register_gemini_generate_content_v1()

    def capabilities(self) -> set[str]:
        if self._nat is None:
            return set()
        return {capability(kind, api) for kind in served_kinds(self) for api in API_SCHEMAS}

    def extract(self, api: str, request: JSON, response: JSON) -> dict[str, Any]:
        nat = self._nat
        assert nat is not None, "extract is declared only when nat is installed"
        return route(nat, api, request, response)

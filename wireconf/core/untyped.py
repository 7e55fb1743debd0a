"""Names for the places where data really is untyped, so that ``Any`` in the harness says which one.

mypy runs strict on the package (``pyproject.toml``). These aliases are ``Any`` to the checker; what
they add is the reader knowing where the value came from and that it is checked where it is used (by
a pydantic model, an ``isinstance``, or the judging itself). An ``Any`` written as such is one not
sorted yet (``tools/any_count.py --list`` lists them); where the type is known, write the type.
"""

from __future__ import annotations

from typing import Any, TypeAlias

JSON: TypeAlias = Any
"""What ``json.loads`` returns (dict, list, str, int, float, bool or None, nested): a request or
response body, an exec-protocol message, a report line, a value read out of one. A JSON object is
written ``dict[str, Any]``."""

YAML: TypeAlias = Any
"""A value as a YAML file holds it (a corpus or cassette file) before a model validates it."""

AdapterResult: TypeAlias = Any
"""What a runtime's adapter returned: its own objects, judged (and checked) by the case's kind."""

SDKObject: TypeAlias = Any
"""An object of a provider SDK (openai, anthropic, google-genai: which one depends on the api), read
by attribute; its type is the SDK's, chosen at run time by the provider registry."""

AdapterObject: TypeAlias = Any
"""A runtime's adapter: an object of the runtime's own class, whose methods the harness looks up by
name (``adapter_contract.py`` lists them); what they return is an ``AdapterResult``."""

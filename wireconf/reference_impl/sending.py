"""How a body built by an api's wire function is sent through the official SDK client.

The body is passed to the SDK method as it is: keys the method declares become its arguments, any
other key (an option passed through ``additionalProperties``) goes in ``extra_body``, so that the SDK
sends exactly the built body and never refuses an unknown key. ``"stream": true`` in the body makes it
a streaming call.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from wireconf.reference_impl.api_parts import Send


def _kwargs(method: Callable[..., Any], body: dict[str, Any]) -> dict[str, Any]:
    declared = inspect.signature(method).parameters
    known = {k: v for k, v in body.items() if k in declared and k != "extra_body"}
    extra = {k: v for k, v in body.items() if k not in known}
    if extra:
        known["extra_body"] = extra
    return known


def sdk_method(path: str) -> Send:
    """``send`` through the client method at ``path`` (``chat.completions.create``)."""

    def send(client: Any, body: dict[str, Any], model: str, stream: bool) -> Any:
        method = client
        for name in path.split("."):
            method = getattr(method, name)
        return method(**_kwargs(method, body))

    return send

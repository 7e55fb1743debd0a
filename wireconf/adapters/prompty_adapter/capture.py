"""A client that stands where prompty's executor expects an SDK client and records the call it makes.

The executor's real ``execute()`` runs (option mapping, tool projection, its live-call guards), then
calls ``client.<resource>.<method>(**arguments)``; those keyword arguments are the request body prompty
asks the SDK to send (the SDK maps each keyword to the body key of the same name). The call is stopped
there: no response is needed to judge a request.
"""

from __future__ import annotations

import json
from typing import Any

from wireconf.adapter_contract import RequestNotSendable

# (resource path, method) for each api, as the executors call them.
SDK_METHODS: dict[str, tuple[tuple[str, ...], str]] = {
    "openai.chat": (("chat", "completions"), "create"),
    "openai.embeddings": (("embeddings",), "create"),
    "openai.images": (("images",), "generate"),
    "openai.responses": (("responses",), "create"),
    "anthropic.messages": (("messages",), "create"),
}


class RequestCaptured(Exception):
    """Raised by the capturing client to stop the executor once the request is known."""

    def __init__(self, resource: str, arguments: dict[str, Any]) -> None:
        super().__init__(f"{resource} called")
        self.resource = resource
        self.arguments = arguments


class _Resource:
    def __init__(self, path: str) -> None:
        self._path = path

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return _Resource(f"{self._path}.{name}" if self._path else name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if args:
            raise RequestNotSendable(f"{self._path}() takes keyword arguments only; prompty passed {args!r}")
        raise RequestCaptured(self._path, kwargs)


class CapturingClient(_Resource):
    """Any attribute path is a resource; calling one raises ``RequestCaptured`` with its arguments."""

    def __init__(self) -> None:
        super().__init__("")


def as_request_body(arguments: dict[str, Any]) -> dict[str, Any]:
    """The JSON body the SDK would send for ``arguments``; raises ``RequestNotSendable`` (the
    runtime's outcome) naming what is not JSON.

    Nothing is converted: a value JSON cannot carry (prompty objects, bytes) is a request that cannot
    be sent, and the error says where it is.
    """

    def check(value: Any, path: str) -> None:
        if value is None or isinstance(value, bool | int | float | str):
            return
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    raise RequestNotSendable(
                        f"the request prompty built has a non-string key {key!r} at {path}"
                    )
                check(item, f"{path}.{key}")
            return
        if isinstance(value, list | tuple):
            for index, item in enumerate(value):
                check(item, f"{path}[{index}]")
            return
        kind = f"{type(value).__module__}.{type(value).__qualname__}"
        raise RequestNotSendable(
            f"the request prompty built is not JSON: {path} is a {kind} ({value!r:.120}); "
            "no SDK can send it as a request body"
        )

    check(arguments, "$")
    copied: dict[str, Any] = json.loads(json.dumps(arguments))
    return copied

"""What both sides of the exec protocol share: reading and writing lines (each read checked against
its record, ``records/``), SDK objects as JSON, and exceptions as messages and back.
"""

from __future__ import annotations

import builtins
import json
import os
import traceback
from collections.abc import Callable, Mapping
from functools import lru_cache
from importlib import resources
from typing import Any

from pydantic import ValidationError

from wireconf.core.error_categories import categorised, reported
from wireconf.core.errors import ContractError, NotJudged
from wireconf.core.report_text import short_path
from wireconf.core.untyped import JSON, AdapterResult
from wireconf.exec_protocol.records import ADAPTERS, EVERY, Sender, problems
from wireconf.exec_protocol.records.bridge import recorded_json as recorded_json  # the client's, as before
from wireconf.exec_protocol.records.bridge import text_or_base64

SCHEMA_FILE = "schema.json"


def schema() -> dict[str, Any]:
    """The JSON Schema of every protocol message."""
    text = resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


VALIDATE = "WIRECONF_EXEC_VALIDATE"
"""Set to 1 (the test suite does), every message either side writes is checked against its record
before it is written (``writing``), as the other side will check it."""


def encode(message: Mapping[str, Any]) -> str:
    """One line of the protocol (no newline): compact JSON, non-ASCII kept, never NaN."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def writing(message: Mapping[str, Any], sender: Sender) -> None:
    """Under ``WIRECONF_EXEC_VALIDATE=1``: ``message``, about to be written by ``sender``, fits its
    record (a ``ProtocolError`` naming the field if not: the writer's own bug, found where it is made)."""
    if os.environ.get(VALIDATE) == "1":
        check(message, sender)


class ProtocolError(NotJudged):
    """A line that is not a protocol message, or a message that does not fit the conversation: never the
    runtime's deviation from a rule, so the case it happens in is an error (``NotJudged``)."""

    default_hint = (
        "each side writes only protocol messages on its stdout, one JSON object a line (a runtime's own "
        "output goes to stderr), as wireconf/exec_protocol/schema.json describes (docs/adapters.md)"
    )


RECORD_HINT = (
    "every message is as its record says: wireconf exec-schema prints them all (a capability is "
    "<kind>:<api> or concept:<name>: wireconf exec-schema lists them: $defs.capability), "
    "docs/exec-protocol.md teaches them"
)


def decode(line: str, sender: Sender = "runtime") -> dict[str, Any]:
    """One line ``sender`` wrote, as the message it is, checked against its record (``records/``): a
    ``ProtocolError`` naming the message's type, each field wrong and the value found there."""
    try:
        message = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ProtocolError(f"not a JSON line: {line[:200]!r} ({exc})") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ProtocolError(f"not a protocol message (a JSON object with a `type`): {line[:200]!r}")
    check(message, sender)
    return message


def check(message: Mapping[str, Any], sender: Sender | None) -> None:
    """``message`` fits its record (one ``sender`` sends, or either side's when None), else a
    ``ProtocolError``."""
    try:
        (EVERY if sender is None else ADAPTERS[sender]).validate_python(message)
    except ValidationError as exc:
        who = (
            f"the {sender}'s" if sender else "a"
        )  # the runtime's `hello` message: ...; a `call` message: ...
        raise ProtocolError(f"{who} {problems(exc, message)}", hint=RECORD_HINT) from None


def to_json(value: AdapterResult, sdk_json: Callable[[Any], Any] | None = None) -> JSON:
    """``value`` as JSON data; an SDK object (a pydantic model) becomes the provider's own JSON.

    ``sdk_json`` is how the provider of the call's api writes its SDK objects (its record says: openai
    and anthropic models with ``to_dict``, their API names); without it, pydantic's
    ``model_dump(by_alias=True)`` (google-genai's camelCase wire names).
    """
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Mapping):
        return {str(k): to_json(v, sdk_json) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_json(v, sdk_json) for v in value]
    if hasattr(type(value), "model_fields"):
        if sdk_json is not None:
            return sdk_json(value)
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True, warnings=False)
    raise ContractError(f"{type(value).__module__}.{type(value).__qualname__} cannot be sent as JSON")


def chunk_json(chunk: bytes) -> dict[str, str]:
    """The fields of an ``event`` message that carries the next bytes of a recorded stream."""
    return text_or_base64(chunk, "chunk")


def error_payload(
    exc: BaseException, skip: str = "/wireconf/exec_protocol/", categories: bool = False
) -> dict[str, Any]:
    """An exception as the ``error`` of an error message; frames of files whose path contains ``skip``
    (the protocol's own) are left out of the traceback. ``categories`` (the hello said so): with the
    error category it declares or its classes map to one-to-one (``error_categories.reported``)."""
    mro = [
        f"{cls.__module__}.{cls.__qualname__}"
        for cls in type(exc).__mro__
        if issubclass(cls, BaseException) and cls not in (BaseException, object)
    ]
    return {
        "type": type(exc).__qualname__,
        "mro": mro,
        "message": str(exc),
        "traceback": _traceback(exc, skip),
        **(reported(exc) if categories else {}),
    }


def _traceback(exc: BaseException, skip: str) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    kept = [f for f in frames if skip not in f.filename.replace("\\", "/")] or frames
    for frame in kept:
        frame.filename = short_path(frame.filename)
    lines = traceback.format_list(kept[-12:]) + traceback.format_exception_only(type(exc), exc)
    return "".join(lines).rstrip()


def _builtin_exception(qualified: str) -> type[Exception] | None:
    module, _, name = qualified.rpartition(".")
    found = getattr(builtins, name, None)
    if module in ("", "builtins") and isinstance(found, type) and issubclass(found, Exception):
        return found
    return None


@lru_cache(maxsize=256)
def _remote_class(mro: tuple[str, ...]) -> type[Exception]:
    """A class whose MRO carries the remote names, rooted at the first built-in exception named. Each
    class keeps the name the runtime sent (``wireconf_name``, shown in verdicts): a bare name that is
    also Python's (a JavaScript ``SyntaxError``, the ``ValueError`` of ``@wireconf/exec``) is the
    runtime's own class on Python's, so it maps to the same error categories but is shown as it is
    called there, never as ``builtins.SyntaxError``."""
    chain: list[str] = []
    base: type[Exception] = Exception
    for qualified in mro:
        builtin = _builtin_exception(qualified)
        if builtin is not None:
            base = builtin
            if "." not in qualified:  # the runtime's own class of that name, not Python's itself
                chain.append(qualified)
            break
        chain.append(qualified)
    cls = base
    for qualified in reversed(chain):
        module, _, name = qualified.rpartition(".")
        # a bare name is the runtime's own: no module, so that a traceback reads ``SyntaxError: ...``
        namespace = {"__module__": module or "builtins", "__qualname__": name, "wireconf_name": qualified}
        cls = type(name, (cls,), namespace)
    return cls


def remote_exception(error: Mapping[str, Any]) -> Exception:
    """The exception an error message describes: same class names (``builtins.ValueError`` is
    ``ValueError``; a bare ``ValueError`` is the runtime's class of that name on it), same message, the
    runtime's traceback as ``wireconf_traceback``, and whose code raised it (``origin``: ``adapter`` when
    the runtime's side says its adapter's own code did, ``wireconf.core.raise_site``) as ``wireconf_origin``
    and ``wireconf_raised_at``. An error that carries
    ``category`` (a runtime whose hello says ``categories``) is declared to mean it (``null``: none of the
    spec's errors, so its class names are not read as Python's); without it, its class names are mapped
    as a Python exception's are (``wireconf.core.error_categories``)."""
    mro = tuple(str(n) for n in (error.get("mro") or [error.get("type") or "Exception"]))
    exc = _remote_class(mro)(str(error.get("message", "")))
    # attributes of wireconf's own on an exception of any class (the runtime's, by name)
    exc.wireconf_traceback = str(error.get("traceback") or "")  # type: ignore[attr-defined]
    origin = "adapter" if error.get("origin") == "adapter" else "runtime"
    exc.wireconf_origin = origin  # type: ignore[attr-defined]  # likewise: whose code raised it
    exc.wireconf_raised_at = str(error.get("at") or "")  # type: ignore[attr-defined]  # and where
    if "category" in error:
        status = error.get("status")
        categorised(exc, error["category"], status if isinstance(status, int) else None)
    return exc

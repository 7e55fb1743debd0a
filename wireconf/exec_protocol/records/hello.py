"""``hello``: who the runtime is and what it declares; its rules by protocol version are here, once."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, model_validator
from pydantic.fields import FieldInfo
from pydantic.json_schema import WithJsonSchema

from wireconf.adapter_contract import CONCEPT
from wireconf.exec_protocol import PROTOCOL_VERSIONS
from wireconf.exec_protocol.records.base import UNIQUE, UNIQUE_ITEMS, Record, since
from wireconf.exec_protocol.records.names import OptionalName, alternatives, capability_pattern
from wireconf.kinds.registry import KINDS

_CAPABILITY = re.compile(capability_pattern())


def _supported(protocol: int) -> int:
    if protocol not in PROTOCOL_VERSIONS:
        raise ValueError(
            f"protocol {protocol!r} is not supported "
            f"(this harness speaks {', '.join(map(str, PROTOCOL_VERSIONS))})"
        )
    return protocol


def _capability(name: str) -> str:
    kind = KINDS.get(name.partition(":")[0])
    if kind is not None and kind.exec_protocol is None:
        raise ValueError(f"{kind.name} capabilities cannot be served over exec: ({kind.exec_limits})")
    if not _CAPABILITY.match(name):
        raise ValueError(f"{name!r} is not a capability (`<kind>:<api>` or `{CONCEPT}:<name>`)")
    return name


Protocol = Annotated[int, AfterValidator(_supported), WithJsonSchema({"enum": list(PROTOCOL_VERSIONS)})]
Capability = Annotated[str, AfterValidator(_capability), WithJsonSchema({"$ref": "#/$defs/capability"})]
NonEmpty = Annotated[str, Field(min_length=1)]


def _limit(kind: str, protocol: int | None, why: str) -> str:
    if protocol == 1:
        return ""
    return f"{kind} {'cannot cross a process' if protocol is None else f'from protocol {protocol}'}: {why}"


_LIMITS = "; ".join(
    filter(None, (_limit(kind.name, kind.exec_protocol, kind.exec_limits) for kind in KINDS.values()))
)


def _since(field: FieldInfo) -> int:
    extra = field.json_schema_extra
    found = extra.get("since", 1) if isinstance(extra, dict) else 1
    return found if isinstance(found, int) else 1


def _version_rules(schema: dict[str, Any]) -> None:
    """The JSON Schema form of ``Hello``'s rules: under each protocol, a field of a later one keeps its
    default, and a kind of a later one is no capability; ``ahead`` only with ``pipeline``."""
    rules: list[dict[str, Any]] = []
    for version in PROTOCOL_VERSIONS:
        later = {
            name: {"const": field.default}
            for name, field in Hello.model_fields.items()
            if _since(field) > version
        }
        kinds = [k.name for k in KINDS.values() if k.exec_protocol is not None and k.exec_protocol > version]
        if kinds:
            later["capabilities"] = {"items": {"not": {"pattern": f"^({alternatives(kinds)}):"}}}
        if later:
            rules.append(
                {"if": {"properties": {"protocol": {"const": version}}}, "then": {"properties": later}}
            )
    rules.append(
        {
            "if": {"properties": {"ahead": {"const": True}}, "required": ["ahead"]},
            "then": {"required": ["pipeline"], "properties": {"pipeline": {"const": True}}},
        }
    )
    schema["allOf"] = rules


class Hello(Record, json_schema_extra=_version_rules):
    __doc__ = (
        "runtime → harness, first line: who the runtime is and the capabilities it declares "
        f"({_LIMITS}). A field added by a protocol version (`since` in the schema) keeps its default "
        "under an older one."
    )

    type: Literal["hello"] = "hello"
    protocol: Protocol
    name: NonEmpty
    version: NonEmpty
    capabilities: Annotated[list[Capability], UNIQUE, UNIQUE_ITEMS]
    optional: Annotated[list[OptionalName], UNIQUE, UNIQUE_ITEMS] | None = Field(
        None,
        description="the optional methods of the adapter contract this runtime has; the harness calls "
        "only these",
    )
    inputs: Literal["json", "recorded"] = Field(
        default="json",
        json_schema_extra=since(
            2,
            "protocol 2: how SDK arguments cross. `json` (the default, and version 1's only way): an SDK "
            "object as the provider's JSON, a stream event as the provider's JSON. `recorded`: an SDK object "
            "as the recorded HTTP response it was parsed from (`recorded`); a streamed argument's head "
            "(`recordedHead`) is in `args` under its name, and each `event` carries the next event's bytes "
            "as `chunk`, so that the runtime's own SDK parses them",
        ),
    )
    warming: bool = Field(
        default=False,
        json_schema_extra=since(
            2,
            "protocol 2: the runtime goes on loading (its SDKs, say) after this hello and says `warm` when "
            "it is done; the harness goes on with its own start-up meanwhile and waits for `warm` before the "
            "first call's time limit starts",
        ),
    )
    categories: bool = Field(
        default=False,
        json_schema_extra=since(
            2,
            "protocol 2: this runtime's errors may carry `category` (and `status`), what the error means in "
            "the spec's terms (`error`); without it an error's `category` is a protocol error",
        ),
    )
    pipeline: bool = Field(
        default=False,
        json_schema_extra=since(
            3,
            "protocol 3, opt-in: the harness sends the events of a call's streamed argument right after the "
            "call, in `events` batches and then `end`, without waiting for `next` (the runtime sends no "
            "`next` for them), so that the harness and the runtime work at once; the runtime says in each "
            "`yield` how many of the events its SDK had read (`read`), which is how the harness still judges "
            "incremental processing. Without it (and under protocols 1 and 2) the events are pulled one at a "
            "time with `next`",
        ),
    )
    ahead: bool = Field(
        default=False,
        json_schema_extra=since(
            3,
            "protocol 3, opt-in, with `pipeline`: the harness may send the calls of the next cases (each "
            "with its events) before the runtime has answered the current one, so that the runtime works on "
            "them while the harness judges and reports; the runtime reads and answers them one at a time, in "
            "the order sent, each call's replies (`events`, `end`, `response`) kept for that call. A call "
            "sent ahead whose case does not run after all is still answered; the harness drops the answer. "
            "Its time limit starts when the harness starts waiting for its answer. Without it the harness "
            "sends a call only once the one before it is answered",
        ),
    )

    endpoints: bool = Field(
        default=False,
        json_schema_extra=since(
            4,
            "protocol 4, opt-in: the runtime uses the base URLs the call carries (`call.endpoint`): its own "
            "SDK, or any HTTP client, calls the case's endpoint and reads the recorded bytes there, and what "
            "it sent is what the harness judges; the harness then sends no recorded inputs and answers no "
            "`http`",
        ),
    )

    @model_validator(mode="after")
    def _by_version(self) -> Hello:
        for name, field in type(self).model_fields.items():
            needs = _since(field)
            value = getattr(self, name)
            if needs > self.protocol and value != field.default:
                what = "true or false" if isinstance(value, bool) else f'"{field.default}" or {value!r}'
                raise ValueError(
                    f"hello's `{name}` is {what}, from protocol {needs} "
                    f"(this hello says protocol {self.protocol})"
                )
        if self.ahead and not self.pipeline:
            raise ValueError("hello's `ahead` is true or false, true only with `pipeline` (protocol 3)")
        for kind in KINDS.values():
            declared = [c for c in self.capabilities if c.startswith(f"{kind.name}:")]
            if declared and kind.exec_protocol is not None and self.protocol < kind.exec_protocol:
                raise ValueError(
                    f"{kind.name} capabilities need protocol {kind.exec_protocol} ({kind.exec_limits})"
                )
            if declared and kind.method is not None and kind.method.http_client is not None:
                why = _unbridgeable(declared)
                if why is not None:
                    raise ValueError(why)
        return self


def _unbridgeable(capabilities: list[str]) -> str | None:
    """Why an e2e capability cannot be served: its api's SDK client cannot be handed over (protocols
    2-3), or None."""
    from wireconf.exec_protocol.http_bridge import unbridgeable

    for capability in capabilities:
        why = unbridgeable(capability.partition(":")[2])
        if why is not None:
            return (
                f"`capabilities`: {capability} cannot be served over exec: the harness cannot hand its "
                f"SDK client to another process ({why}); leave it out of the hello"
            )
    return None

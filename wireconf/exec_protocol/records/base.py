"""What every record of the exec protocol shares: strict JSON (no coercion), no field it does not name,
and a field that may be left out is never ``null`` unless its record says ``null`` means something."""

from __future__ import annotations

import types
import typing
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator
from pydantic.json_schema import WithJsonSchema

Null = Annotated[None, WithJsonSchema({"type": "null"})]
"""``null`` as a value a field may take (``call.stream``: no streamed argument), unlike ``X | None =
None``, which only says the field may be left out."""


def _unique(values: list[Any]) -> list[Any]:
    if len(set(values)) != len(values):
        raise ValueError(f"names one item twice: {values}")
    return values


UNIQUE = AfterValidator(_unique)
UNIQUE_ITEMS = Field(json_schema_extra={"uniqueItems": True})
"""The metadata of a list whose items are each named once: ``Annotated[list[X], UNIQUE, UNIQUE_ITEMS]``."""
UniqueNames = Annotated[list[str], UNIQUE, UNIQUE_ITEMS]

ID_DESCRIPTION = "The call this message belongs to"
CallId = Annotated[int, Field(ge=1, description=ID_DESCRIPTION)]


def since(version: int, description: str) -> Any:
    """A field's metadata: the protocol version that added it (``Hello`` refuses it under an older one)."""
    return {"since": version, "description": description}


def _absent_only(annotation: Any) -> bool:
    """``X | None`` with a plain ``None``: the field may be absent, never ``null``."""
    if typing.get_origin(annotation) not in (typing.Union, types.UnionType):
        return False
    return type(None) in typing.get_args(annotation)


class Record(BaseModel):
    """One JSON object of the protocol."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, hide_input_in_errors=True)
    _not_null: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls._not_null = frozenset(  # as the JSON names them (`mro`, not `classes`)
            field.alias or name for name, field in cls.model_fields.items() if _absent_only(field.annotation)
        )

    @model_validator(mode="before")
    @classmethod
    def _no_null_for_absent(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for name in cls._not_null:
                if name in data and data[name] is None:
                    raise ValueError(f"`{name}` may be left out, but is never null")
        return data

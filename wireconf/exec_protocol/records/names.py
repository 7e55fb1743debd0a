"""The names the records take from the registries, built at import (as ``corpus/model.py`` builds the
case file's): apis from the provider records, kinds, methods and the protocol each kind needs from the
kind records, concepts from the adapter contract, error categories from ``error_categories``. A new api
or kind installed as an extension is in the records, and so in the schema, without an edit here."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal

from wireconf.adapter_contract import CONCEPT, CONCEPTS
from wireconf.core.error_categories import CATEGORIES
from wireconf.kinds.kind import Kind
from wireconf.kinds.registry import KINDS, OPTIONAL_METHODS
from wireconf.providers.registry import API_NAMES

CROSSING: tuple[Kind[Any, Any], ...] = tuple(
    kind for kind in KINDS.values() if kind.exec_protocol is not None
)
"""The kinds whose calls can cross a process (trace's spans cannot)."""

KIND_NAMES = tuple(kind.name for kind in CROSSING)
METHOD_NAMES = tuple(
    [*(k.method.name for k in CROSSING if k.method is not None), *(m.name for m in OPTIONAL_METHODS)]
)
OPTIONAL_NAMES = tuple(method.name for method in OPTIONAL_METHODS)
CATEGORY_NAMES = tuple(CATEGORIES)

if TYPE_CHECKING:  # the names are known only at run time (the registries): str to the checker
    ApiName = str
    ApiOrNull = str | None
    CategoryOrNull = str | None
    KindName = str
    MethodName = str
    OptionalName = str
    Category = str
else:
    ApiName = Literal[API_NAMES]
    ApiOrNull = Literal[(*API_NAMES, None)]  # null: a method without an api
    CategoryOrNull = Literal[(*CATEGORY_NAMES, None)]  # null: none of the spec's errors
    KindName = Literal[KIND_NAMES]
    MethodName = Literal[METHOD_NAMES]
    OptionalName = Literal[OPTIONAL_NAMES]
    Category = Literal[CATEGORY_NAMES]


def alternatives(names: tuple[str, ...] | list[str]) -> str:
    return "|".join(re.escape(name) for name in names)


def capability_pattern(kinds: tuple[str, ...] = KIND_NAMES) -> str:
    """``<kind>:<api>`` or ``concept:<name>``."""
    return (
        f"^(({alternatives(kinds)}):({alternatives(API_NAMES)})"
        f"|{CONCEPT}:({'|'.join(CONCEPTS)}))$"  # names of [a-z-]: nothing to escape
    )


def listed(names: list[str]) -> str:
    return ", ".join(names) if names else "none"


METHODS = [kind.method for kind in CROSSING if kind.method is not None]
YIELDING = [m.name for m in METHODS if m.yields]
STREAMING = [m.name for m in METHODS if m.may_stream]
BRIDGED = [m for m in METHODS if m.http_client is not None]

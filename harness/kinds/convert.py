"""``convert`` (seed 004, the response converter): a response or stream → normalised messages.

Not implemented yet: ``CaseModel`` and ``prepare`` are ``None`` until this kind's issue lands, and the
registry leaves the kind out of the case union (a case of this kind is reported as an unknown kind).
"""

from __future__ import annotations

from typing import Any

NOUN = "result"
CaseModel: Any = None
prepare: Any = None

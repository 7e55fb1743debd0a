"""A fake is the reference adapter with one method changed."""

from __future__ import annotations

from reference_impl.adapter import ReferenceAdapter


class FakeAdapter(ReferenceAdapter):
    version = "0.0.1"

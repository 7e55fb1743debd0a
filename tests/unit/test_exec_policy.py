"""The exec protocol's support policy (``wireconf/exec_protocol/__init__.py``, docs/exec-protocol.md)
holds: the versions the harness accepts are the ones it says, and every field says the version that
added it."""

from __future__ import annotations

from tests.conftest import REPO
from wireconf import exec_protocol
from wireconf.exec_protocol import KEPT_BEFORE, PROTOCOL_VERSION, PROTOCOL_VERSIONS, RETIRING, SUPPORT_POLICY


def test_the_accepted_versions_are_the_current_the_two_before_it_and_the_retiring():
    kept = set(range(PROTOCOL_VERSION - KEPT_BEFORE, PROTOCOL_VERSION + 1))
    assert KEPT_BEFORE == 2
    assert set(PROTOCOL_VERSIONS) == kept | set(RETIRING)
    assert list(PROTOCOL_VERSIONS) == sorted(PROTOCOL_VERSIONS)
    assert all(version < min(kept) for version in RETIRING), "a retiring version is older than the kept ones"
    assert all(RETIRING.values()), "a retiring version names the release it leaves in"


def test_protocols_1_to_3_stay_accepted():
    """No changelog has announced the end of any of them (the policy's condition for leaving)."""
    assert {1, 2, 3} <= set(PROTOCOL_VERSIONS)


def test_the_policy_is_written_where_implementers_read_it():
    page = (REPO / "docs" / "exec-protocol.md").read_text(encoding="utf-8")
    assert SUPPORT_POLICY in page.replace("\n", " ")
    assert "Support policy" in (exec_protocol.__doc__ or "")
    for version, release in RETIRING.items():
        assert f"protocol {version}" in page and release in page


def test_every_field_says_the_version_that_added_it_and_that_version_is_spoken():
    from wireconf.exec_protocol.records import HARNESS_RECORDS, RUNTIME_RECORDS, Hello

    for record in (*RUNTIME_RECORDS, *HARNESS_RECORDS):
        for name, field in record.model_fields.items():
            extra = field.json_schema_extra
            since = extra.get("since", 1) if isinstance(extra, dict) else 1
            assert since in range(1, PROTOCOL_VERSION + 1), (record.__name__, name)
            if since > 1:
                assert not field.is_required(), f"{record.__name__}.{name}: a later field is optional"
    assert Hello.model_fields["protocol"].is_required()

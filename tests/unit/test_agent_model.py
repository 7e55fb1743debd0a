"""``wireconf lint`` checks every case's agent against the spec authors' own model of an agent
(``model.json``, read where it lies, never copied): a case whose agent that model rejects is a lint
problem naming its file, line, case and the place in the agent."""

from __future__ import annotations

import textwrap

import pytest

from wireconf.cli import main
from wireconf.corpus.agent_model import MODEL_PATH, agent_schema, check_agent, model_file

MODEL = model_file()
pytestmark = pytest.mark.skipif(MODEL is None, reason="the spec authors' model.json is not here")

RULES = (
    "rules:\n"
    "  - {id: '7.1.4/x', level: MUST, basis: text, source: {seed: s, section: '7.1.4'}, statement: s}\n"
)

CASE = """\
cases:
  - id: wire.openai.chat.bad-agent
    kind: wire
    api: openai.chat
    rules: ['7.1.4/x']
    agent:
      model: {{id: gpt-4o-mini}}
      tools:
        - {tool}
    messages: [{{role: user, content: [{{kind: text, value: hi}}]}}]
    expect: {{model: gpt-4o-mini}}
"""


def _schema():
    assert MODEL is not None
    return agent_schema(MODEL)


def _where(agent):
    return [str(p) for p in check_agent(agent, _schema())]


def _lint(tmp_path, tool: str, capsys) -> tuple[int, str]:
    (tmp_path / "rules.yaml").write_text(RULES)
    (tmp_path / "c.yaml").write_text(textwrap.dedent(CASE.format(tool=tool)))
    code = main(["lint", str(tmp_path)])
    return code, capsys.readouterr().out


def test_lint_rejects_an_array_property_without_items(tmp_path, capsys):
    tool = "{kind: function, name: f, parameters: [{name: tags, kind: array}]}"
    code, out = _lint(tmp_path, tool, capsys)
    assert code == 1
    assert "c.yaml:6: wire.openai.chat.bad-agent: the spec authors' model of an agent" in out
    assert "agent.tools[0].parameters[0]: 'items' is a required property" in out


def test_lint_rejects_a_custom_tool_without_connection(tmp_path, capsys):
    code, out = _lint(tmp_path, "{kind: ev_charging, name: find_station}", capsys)
    assert code == 1 and "agent.tools[0]: 'connection' is a required property" in out


def test_lint_passes_the_same_case_written_as_the_model_allows(tmp_path, capsys):
    tool = "{kind: function, name: f, parameters: [{name: tags, kind: array, items: {kind: string}}]}"
    code, out = _lint(tmp_path, tool, capsys)
    assert code == 0, out


def test_what_the_model_says_an_agent_may_be():
    # shorthands and defaults: a model written as its id; an agent without a name (it has a default)
    assert _where({"model": "gpt-4o"}) == []
    # a function tool without parameters: an absent collection reads as empty, as the authors' loader reads it
    assert _where({"tools": [{"kind": "function", "name": "f"}]}) == []
    # an open enum (Connection.kind) takes other values; a closed one (Property.kind) does not
    assert (
        _where({"tools": [{"kind": "mcp", "name": "m", "serverName": "m", "connection": {"kind": "stdio"}}]})
        == []
    )
    assert _where({"inputs": [{"name": "n", "kind": "number"}]}) == [
        "agent.inputs[0].kind: 'number' is not one of ['string', 'integer', 'float', 'boolean', "
        "'array', 'object', 'union', 'thread', 'image', 'audio', 'file']"
    ]
    # a named collection may be a mapping name → item; an array's items are a property, never a list
    assert _where({"outputs": {"when": {"kind": "string"}}}) == []
    assert _where(
        {
            "tools": [
                {
                    "kind": "function",
                    "name": "f",
                    "parameters": [{"name": "p", "kind": "array", "items": [1]}],
                }
            ]
        }
    )


def test_the_model_is_found_where_it_lies_and_its_absence_skips_the_check(tmp_path):
    assert MODEL is not None
    assert model_file({"WIRECONF_THIRD_PARTY": str(MODEL.parents[1])}, cwd=tmp_path) == MODEL
    assert model_file({}, cwd=tmp_path) is None
    assert MODEL.parts[-2:] == MODEL_PATH.parts

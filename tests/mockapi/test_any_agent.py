"""The rehearsal's mock: every sub-agent answered at once with a value that fits its schema."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wftop.mockapi.flow import decide
from wftop.mockapi.schema import minimal_instance

CONFIG = {"any_agent": True}


def agent_body(tools: list[dict[str, Any]], *extra: dict[str, Any]) -> dict[str, Any]:
    first = {"role": "user", "content": [{"type": "text", "text": "Summarise the repo."}]}
    return {"model": "m", "tools": tools, "messages": [first, *extra]}


def structured(schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": "StructuredOutput", "input_schema": schema}


SCHEMA = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "minLength": 3},
        "score": {"type": "integer", "minimum": 2},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
        "kind": {"enum": ["bug", "feature"]},
        "ok": {"type": "boolean"},
        "ref": {"$ref": "#/$defs/note"},
        "maybe": {"type": ["null", "string"]},
    },
    "required": ["title", "score", "tags", "kind", "ok", "ref", "maybe"],
    "$defs": {"note": {"type": "object", "properties": {"n": {"const": 7}}, "required": ["n"]}},
}


def test_an_agent_with_a_schema_gets_a_structured_output_that_fits_it() -> None:
    plan = decide(agent_body([{"name": "Read"}, structured(SCHEMA)]), CONFIG, lambda _: 1)
    (block,) = plan.content
    assert (plan.kind, block["type"], block["name"]) == ("agent", "tool_use", "StructuredOutput")
    answer = block["input"]
    assert len(answer["title"]) >= 3 and answer["score"] >= 2 and len(answer["tags"]) == 2
    assert (answer["kind"], answer["ok"], answer["ref"]) == ("bug", False, {"n": 7})
    assert isinstance(answer["maybe"], str)


def test_two_answers_never_repeat_a_string() -> None:
    """A prompt that embeds an answer must change when the call re-runs (a new key)."""
    body = agent_body(
        [structured({"type": "object", "properties": {"t": {"type": "string"}}, "required": ["t"]})]
    )
    first, second = (decide(body, CONFIG, lambda _: 1).content[0]["input"]["t"] for _ in "ab")
    assert first and second and first != second


def test_the_tool_result_of_the_structured_output_ends_the_agent() -> None:
    call = {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "t1", "name": "StructuredOutput", "input": {}}],
    }
    done = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"}]}
    plan = decide(agent_body([structured(SCHEMA)], call, done), CONFIG, lambda _: 1)
    assert plan.kind == "agent_done"


def test_without_a_schema_the_agent_answers_in_text_and_calls_no_tool() -> None:
    plan = decide(agent_body([{"name": "Bash"}, {"name": "Read"}]), CONFIG, lambda _: 1)
    assert plan.kind == "agent_text" and all(b["type"] == "text" for b in plan.content)


@pytest.mark.parametrize("config", [{}, {"any_agent": False}])
def test_only_the_rehearsal_answers_unmarked_agents(config: dict[str, Any]) -> None:
    plan = decide(agent_body([{"name": "Read"}, structured(SCHEMA)]), config, lambda _: 1)
    assert plan.kind == "other"


def test_the_main_conversation_is_not_taken_for_an_agent() -> None:
    body = agent_body([{"name": "Workflow"}])
    assert decide(body, CONFIG, lambda _: 1).kind.startswith("main")


leaf = st.sampled_from(
    [
        {"type": "string"},
        {"type": "string", "minLength": 4, "maxLength": 6},
        {"type": "integer", "minimum": -3},
        {"type": "number", "exclusiveMinimum": 1},
        {"type": "boolean"},
        {"enum": [3, "x"]},
        {"const": "c"},
    ]
)
schemas = st.recursive(
    leaf,
    lambda inner: st.one_of(
        st.builds(
            lambda items, n: {"type": "array", "items": items, "minItems": n},
            inner,
            st.integers(0, 3),
        ),
        st.dictionaries(st.text("abc", min_size=1, max_size=3), inner, max_size=3).map(
            lambda props: {"type": "object", "properties": props, "required": sorted(props)}
        ),
        st.lists(inner, min_size=1, max_size=2).map(lambda parts: {"anyOf": parts}),
    ),
    max_leaves=8,
)


def valid(value: Any, schema: dict[str, Any]) -> bool:
    """A small validator for the shapes above (the mock's answers must pass the CLI's)."""
    if "const" in schema:
        return value == schema["const"]
    if "enum" in schema:
        return value in schema["enum"]
    if "anyOf" in schema:
        return any(valid(value, part) for part in schema["anyOf"])
    kind = schema["type"]
    if kind == "object":
        return isinstance(value, dict) and all(
            name in value and valid(value[name], part)
            for name, part in schema["properties"].items()
        )
    if kind == "array":
        return (
            isinstance(value, list)
            and len(value) >= schema["minItems"]
            and all(valid(item, schema["items"]) for item in value)
        )
    if kind == "string":
        return isinstance(value, str) and schema.get("minLength", 0) <= len(value) <= schema.get(
            "maxLength", 10**9
        )
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool) and value >= schema["minimum"]
    if kind == "number":
        return isinstance(value, int | float) and value > schema["exclusiveMinimum"]
    return isinstance(value, bool)


@given(schemas, st.text(min_size=1, max_size=12))
def test_every_answer_fits_its_schema(schema: dict[str, Any], fill: str) -> None:
    assert valid(minimal_instance(schema, fill), schema)

"""The smallest JSON value a JSON Schema accepts, for answers that must fit an output schema.

A rehearsal answers every sub-agent at once; an agent with an output schema must get a
``StructuredOutput`` input the CLI validates, or it re-asks and the run never ends. Covers
what Workflow scripts use: ``type`` (and type lists), ``enum``, ``const``, ``required``
``properties``, ``items`` with ``minItems``, ``anyOf``/``oneOf``/``allOf``, numeric and string
minimums, and local ``$ref``s (``#/…``).
"""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 32


def minimal_instance(schema: Any, fill: str = "", root: Any = None, depth: int = 0) -> Any:
    """A value valid for ``schema`` (best effort; ``None`` for a schema it cannot read).

    Strings are ``fill`` (cut or padded to the schema's length limits), so that a prompt
    that embeds the answer differs from one that embedded an earlier answer.
    """
    root = schema if root is None else root
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return None
    if "$ref" in schema and isinstance(schema["$ref"], str):
        return minimal_instance(_resolve(root, schema["$ref"]), fill, root, depth + 1)
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return minimal_instance(schema[key][0], fill, root, depth + 1)
    if isinstance(schema.get("allOf"), list):
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            if isinstance(part, dict):
                properties = {**merged.get("properties", {}), **part.get("properties", {})}
                merged = {**merged, **part, "properties": properties}
        return minimal_instance(merged, fill, root, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else None)
    if kind == "object" or (kind is None and "properties" in schema):
        declared = schema.get("properties")
        if not isinstance(declared, dict):
            declared = {}
        required = [name for name in schema.get("required") or [] if isinstance(name, str)]
        deeper = depth + 1
        fields = {name: declared.get(name, {}) for name in required}
        return {name: minimal_instance(part, fill, root, deeper) for name, part in fields.items()}
    if kind == "array":
        count = int(schema.get("minItems") or 0)
        item = minimal_instance(schema.get("items", {}), fill, root, depth + 1)
        return [item for _ in range(count)]
    if kind == "string":
        low, high = int(schema.get("minLength") or 0), schema.get("maxLength")
        text = fill[: int(high)] if isinstance(high, int) else fill
        return text + "x" * max(0, low - len(text))
    if kind in ("integer", "number"):
        least = schema.get("minimum", schema.get("exclusiveMinimum"))
        value = 0 if least is None else least + (1 if "exclusiveMinimum" in schema else 0)
        return int(value) if kind == "integer" else value
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return ""


def _resolve(root: Any, ref: str) -> Any:
    if not ref.startswith("#"):
        return {}
    node = root
    for part in ref.lstrip("#").strip("/").split("/"):
        if not part:
            continue
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return {}
        node = node[part]
    return node

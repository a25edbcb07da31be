"""Typed reads of an object's custom field values.

The API answers ``custom_fields`` with every key your account defines for the kind, ``None`` when unset. The
API's document cannot know your keys, so the generated types hold ``custom_fields`` as a plain mapping; these
accessors check a value's type as they read it::

    from bms_sdk import custom_fields

    tier = custom_fields.select(client, "tier")          # Optional[str]
    budget = custom_fields.money(invoice, "budget")      # Optional[int], minor units

Each raises ``TypeError`` for a key the object does not have, or a value of another type.
"""
from __future__ import annotations

import re
from typing import Any, Callable, List, Mapping, Optional, cast

__all__ = ["text", "number", "money", "date", "boolean", "select", "multi_select"]

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _read(obj: Mapping[str, Any], key: str, check: Callable[[Any], bool], expected: str) -> Optional[Any]:
    values = obj.get("custom_fields") or {}
    if key not in values:
        defined = ", ".join(values) or "none is defined"
        raise TypeError(f"'{key}' is not a custom field of this object (defined: {defined})")
    value = values[key]
    if value is None:
        return None
    if not check(value):
        raise TypeError(f"custom field '{key}' holds {value!r}, not {expected}")
    return value


def text(obj: Mapping[str, Any], key: str) -> Optional[str]:
    return cast(Optional[str], _read(obj, key, lambda value: isinstance(value, str), "a text"))


def number(obj: Mapping[str, Any], key: str) -> Optional[float]:
    return cast(
        Optional[float],
        _read(obj, key, lambda value: isinstance(value, (int, float)) and not isinstance(value, bool), "a number"),
    )


def money(obj: Mapping[str, Any], key: str) -> Optional[int]:
    """Integer minor units of the object's currency (its document's, else the account's)."""
    return cast(
        Optional[int],
        _read(obj, key, lambda value: isinstance(value, int) and not isinstance(value, bool), "an amount in minor units"),
    )


def date(obj: Mapping[str, Any], key: str) -> Optional[str]:
    """``YYYY-MM-DD``."""
    return cast(Optional[str], _read(obj, key, lambda value: isinstance(value, str) and bool(_DATE.match(value)), "a date"))


def boolean(obj: Mapping[str, Any], key: str) -> Optional[bool]:
    return cast(Optional[bool], _read(obj, key, lambda value: isinstance(value, bool), "true or false"))


def select(obj: Mapping[str, Any], key: str) -> Optional[str]:
    """The option's value."""
    return cast(Optional[str], _read(obj, key, lambda value: isinstance(value, str), "an option value"))


def multi_select(obj: Mapping[str, Any], key: str) -> Optional[List[str]]:
    """The options' values."""
    return cast(
        Optional[List[str]],
        _read(
            obj,
            key,
            lambda value: isinstance(value, list) and all(isinstance(one, str) for one in value),
            "a list of option values",
        ),
    )

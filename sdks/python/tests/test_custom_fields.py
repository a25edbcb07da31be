"""The typed accessors of custom field values (no server needed)."""
from __future__ import annotations

import unittest

from bms_sdk import custom_fields

CLIENT = {
    "object": "client",
    "custom_fields": {
        "gate_code": "4512",
        "visits": 2.5,
        "budget": 125000,
        "since": "2024-01-31",
        "vip": True,
        "tier": "gold",
        "services": ["lawn", "snow"],
        "unset": None,
    },
}


class CustomFields(unittest.TestCase):
    def test_each_type_reads_its_value(self) -> None:
        self.assertEqual(custom_fields.text(CLIENT, "gate_code"), "4512")
        self.assertEqual(custom_fields.number(CLIENT, "visits"), 2.5)
        self.assertEqual(custom_fields.money(CLIENT, "budget"), 125000)
        self.assertEqual(custom_fields.date(CLIENT, "since"), "2024-01-31")
        self.assertIs(custom_fields.boolean(CLIENT, "vip"), True)
        self.assertEqual(custom_fields.select(CLIENT, "tier"), "gold")
        self.assertEqual(custom_fields.multi_select(CLIENT, "services"), ["lawn", "snow"])
        self.assertIsNone(custom_fields.text(CLIENT, "unset"))

    def test_an_undefined_key_or_another_type_is_a_type_error(self) -> None:
        with self.assertRaisesRegex(TypeError, "'nope' is not a custom field"):
            custom_fields.text(CLIENT, "nope")
        with self.assertRaisesRegex(TypeError, "not an amount in minor units"):
            custom_fields.money(CLIENT, "visits")
        with self.assertRaisesRegex(TypeError, "not a number"):
            custom_fields.number(CLIENT, "vip")


if __name__ == "__main__":
    unittest.main()

"""Runs the README's examples, as they are, against the server the harness started."""
from __future__ import annotations

import os
import re
import unittest
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


@unittest.skipUnless(os.environ.get("BMS_BASE_URL") and os.environ.get("BMS_API_KEY"), "needs a running server")
class Readme(unittest.TestCase):
    def test_examples_run(self) -> None:
        blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
        self.assertGreaterEqual(len(blocks), 3)
        exec(compile("\n".join(blocks), str(README), "exec"), {"__name__": "readme"})


if __name__ == "__main__":
    unittest.main()

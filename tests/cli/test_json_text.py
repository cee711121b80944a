"""``--json`` text: the column-by-column writer gives the standard encoder's text exactly."""

from __future__ import annotations

import json

import numpy as np
import pytest

from evalcore.cli.common import _plain, dumps


def _standard(payload) -> str:
    return json.dumps(_plain(payload), indent=2, ensure_ascii=False)


PAYLOADS = {
    "rows": {
        "models": [
            {
                "rank": np.int64(k),
                "model": f'm\u00e9{k}"',
                "rating": 1000.0 + k / 3,
                "ci_low": np.nan,
                "ok": np.bool_(k % 2),
                "low": None,
                "ratio": np.float32(0.1),
                "flag": True,
            }
            for k in range(5)
        ],
        "notes": ["one", "two\nlines"],
    },
    "empty_and_nested": {
        "a": [],
        "b": {},
        "c": [{"x": 1, "y": [1, 2]}, {"x": 2, "y": []}],
        1: (np.inf, -0.0),
    },
    "ragged_rows": {
        "f": [{"a": 1}, {"b": 2}],
        "g": [[{"a": 1}]],
        "h": [{"a": {"z": 1e300}}],
        "i": np.arange(3),
    },
    "unknown_types": {"s": type("S", (str,), {})("sub"), "i": np.int8(3), "f": np.float16(0.5)},
    # keys that are not strings: the standard encoder writes true, null and 1.5
    "odd_keys": {True: 1, None: [{False: 2}, {False: 3}], 1.5: [{"a": 1, 2: "b"}, {"a": 2, 2: "c"}]},
}


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_the_json_text_is_the_standard_encoders(name):
    assert dumps(PAYLOADS[name]) == _standard(PAYLOADS[name])

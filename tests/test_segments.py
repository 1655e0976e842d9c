"""The segment helpers against plain per-segment loops, on random segmentations."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from rankeval import segments as seg


@st.composite
def segmented(draw):
    lengths = draw(st.lists(st.integers(0, 6), min_size=1, max_size=8))
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    n = int(offsets[-1])
    values = np.array(draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), dtype=np.float64)
    return offsets, values


def _pieces(offsets, x):
    return [x[offsets[i]:offsets[i + 1]] for i in range(len(offsets) - 1)]


@given(segmented())
def test_segment_helpers_match_loops(data):
    offsets, x = data
    pieces = _pieces(offsets, x)
    np.testing.assert_array_equal(seg.segment_lengths(offsets), [len(p) for p in pieces])
    np.testing.assert_array_equal(seg.segment_ids(offsets),
                                  [i for i, p in enumerate(pieces) for _ in p])
    np.testing.assert_array_equal(seg.segment_positions(offsets), [j + 1 for p in pieces for j in range(len(p))])
    np.testing.assert_array_equal(seg.segment_sum(x, offsets), [p.sum() for p in pieces])
    np.testing.assert_array_equal(seg.segment_cumsum(x, offsets),
                                  np.concatenate([np.cumsum(p) for p in pieces] + [np.zeros(0)]))
    np.testing.assert_array_equal(seg.segment_cumsum(x > 0, offsets),
                                  np.concatenate([np.cumsum(p > 0) for p in pieces] + [np.zeros(0)]))
    np.testing.assert_array_equal(seg.segment_first(x > 0, offsets),
                                  [int(np.argmax(p > 0)) + 1 if (p > 0).any() else 0 for p in pieces])
    np.testing.assert_array_equal(seg.segment_max(x, offsets), [p.max() if len(p) else np.nan for p in pieces])
    np.testing.assert_array_equal(seg.segment_min(x, offsets), [p.min() if len(p) else np.nan for p in pieces])
    for descending in (False, True):
        order = seg.segment_argsort(x, offsets, descending=descending)
        expected = [np.sort(p)[::-1] if descending else np.sort(p) for p in pieces]
        np.testing.assert_array_equal(x[order], np.concatenate(expected + [np.zeros(0)]))
        assert (seg.segment_ids(offsets)[order] == seg.segment_ids(offsets)).all()


def test_segment_argsort_keeps_ties_in_row_order():
    offsets = np.array([0, 4])
    x = np.array([1.0, 2.0, 1.0, 2.0])
    assert seg.segment_argsort(x, offsets, descending=True).tolist() == [1, 3, 0, 2]

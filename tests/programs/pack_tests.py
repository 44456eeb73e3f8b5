"""Packing orders into boxes: a test module with its own exception class."""
import pytest


class PackError(ValueError):
    """An order that does not fit its box."""


BOX_SIZES = {"small": 2, "medium": 4, "large": 8}


def pack(items, box):
    size = BOX_SIZES[box]
    if len(items) > size:
        raise PackError(f"{len(items)} items do not fit in a {box} box ({size})")
    return list(items)


def weight(items):
    # the shipping weight, in grams
    return sum(50 * item for item in items)


@pytest.mark.parametrize("box", ["small", "large"])
def test_pack(box):
    items = [1, 2, 3, 4]
    assert weight(items) == 500
    assert pack(items, box) == items

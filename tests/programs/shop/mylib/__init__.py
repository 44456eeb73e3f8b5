"""The shop's own order and pricing helpers."""

from .orders import Order, LineItem
from .pricing import PricingError, quote

__all__ = ["Order", "LineItem", "PricingError", "quote"]

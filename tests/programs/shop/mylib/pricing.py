"""Quotes: discounts by tier, and the margin check every quote must pass."""

TIERS = {"basic": 0.0, "silver": 0.05, "gold": 0.12}
MIN_MARGIN = 0.02


class PricingError(Exception):
    """A quote that would sell below cost."""


def discount(order, tier):
    rate = TIERS[tier]
    if order.revenue() > 1000:
        rate += 0.03
    return rate


def quote(order, tier):
    price = order.revenue() * (1 - discount(order, tier))
    margin = (price - order.cost()) / price
    if margin < MIN_MARGIN:
        raise PricingError(f"order {order.order_id}: margin {margin:.3f} is below {MIN_MARGIN}")
    return round(price, 2)

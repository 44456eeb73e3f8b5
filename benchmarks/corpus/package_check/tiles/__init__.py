"""A small tiling library kept in the project (not installed): the kernels' launch planner."""

from .config import DEFAULTS, TileConfig
from .plan import plan_launch

__all__ = ["DEFAULTS", "TileConfig", "plan_launch"]

import tiles.plan
from tiles import TileConfig
SHAPES = [(4096, 128, 64)]
DTYPES = ['float16']
TUNED = {('float16', 4096): TileConfig(128, 128, 64, stages=4)}

def pick_tile(m, dtype, *args, **kwargs):
    return TUNED.get((dtype, m))

def sweep(*args, **kwargs):
    for dtype in DTYPES:
        for m, n, k in SHAPES:
            tile = pick_tile(m, dtype)
            tiles.plan_launch(m, n, k, dtype, tile)

def main(*args, **kwargs):
    sweep()
main()
"""The host program: loads the plugin file it is given and checks one known-bad lookup.

    python driver.py PLUGIN.py   # exit 0: the bug is there (the address is found as written,
                                 # not when written with "St."), 1: it is not, 2: the plugin does not load
"""

import importlib.util
import sys

spec = importlib.util.spec_from_file_location("plugin", sys.argv[1])
plugin = importlib.util.module_from_spec(spec)
try:
    spec.loader.exec_module(plugin)
    index = plugin.Index()
    index.add({"street": "12 Main Street", "city": "Springfield"})
    exact = index.lookup("12 Main Street", "Springfield")
    found = index.lookup("12 main St.", "springfield")
except Exception as error:  # noqa: BLE001 - a broken plugin is not the bug
    print(f"plugin does not load: {error!r}")
    sys.exit(2)
sys.exit(0 if exact and not found else 1)

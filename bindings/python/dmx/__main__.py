# SPDX-License-Identifier: BSD-3-Clause
"""python3 -m dmx [version]: print the library's version and where it was loaded from.
python3 -m dmx bench [options]: the Python calls against the C calls (dmx/_bench.py; --help)."""
import sys

import dmx
from dmx import _lib

if len(sys.argv) > 1 and sys.argv[1] == "bench":
    from dmx import _bench

    sys.exit(_bench.main(sys.argv[2:]))
if len(sys.argv) > 1 and sys.argv[1] not in ("version", "--version"):
    sys.exit("usage: python3 -m dmx [version | bench [options]]")
print("dmx %s (%s)" % (dmx.__version__, _lib.lib._name))

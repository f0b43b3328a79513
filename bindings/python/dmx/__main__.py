# SPDX-License-Identifier: BSD-3-Clause
"""python3 -m dmx [version]: print the library's version and where it was loaded from."""
import sys

import dmx
from dmx import _lib

if len(sys.argv) > 1 and sys.argv[1] not in ("version", "--version"):
    sys.exit("usage: python3 -m dmx [version]")
print("dmx %s (%s)" % (dmx.__version__, _lib.lib._name))

"""What the machine charges for memory a process touches for the first time.

On a virtual machine whose memory the host backs lazily (Firecracker and other micro-VMs), the
first write to a page of guest memory that no process has used since boot costs tens of
microseconds; the same page is cheap once any process has touched it. A benchmark that allocates
a few hundred megabytes on a freshly booted VM then measures the host, not the code: 72 MB of new
pages took 0.85 s on the developers' VM, against 0.01 s once warm. The arena benchmarks print
:func:`first_touch_ms_per_mb` so a reader sees which regime a figure was taken in, and accept
``--warm GB`` to touch that much memory once (in a throw-away process) before measuring.
"""

from __future__ import annotations

import subprocess
import sys

_PROBE = r"""
import sys, time
import numpy as np
mb = int(sys.argv[1])
t = time.perf_counter()
x = np.ones(mb * 1024 * 1024 // 8)
print((time.perf_counter() - t) * 1000 / mb)
"""

_WARM = r"""
import sys
import numpy as np
blocks = [np.ones(256 * 1024 * 1024 // 8) for _ in range(int(float(sys.argv[1]) * 4))]
"""


def first_touch_ms_per_mb(mb: int = 256) -> float:
    """Milliseconds per megabyte to allocate and fill ``mb`` MB in a fresh process."""
    done = subprocess.run([sys.executable, "-c", _PROBE, str(mb)], capture_output=True, text=True, check=True)
    return float(done.stdout.strip())


def warm_memory(gigabytes: float) -> None:
    """Touch ``gigabytes`` of memory once in a throw-away process (see the module docstring)."""
    if gigabytes > 0:
        subprocess.run([sys.executable, "-c", _WARM, str(gigabytes)], check=True)

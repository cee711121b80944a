"""``python -m evalcore``: the command-line face of the library."""

from evalcore.cli import main

raise SystemExit(main())

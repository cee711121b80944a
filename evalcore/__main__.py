"""``python -m evalcore``: the command-line face of the library."""

from evalcore.cli import main

if __name__ == "__main__":
    raise SystemExit(main())

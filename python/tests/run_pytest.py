"""Runs pytest on the moelab module's tests; exit 77 (CTest: skipped) when pytest or numpy is missing."""
import sys

try:
    import numpy  # noqa: F401
    import pytest
except ImportError as e:  # pragma: no cover
    print(f"skipped: {e} (apt-get install python3-pytest python3-numpy)")
    sys.exit(77)

sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", *sys.argv[1:]]))

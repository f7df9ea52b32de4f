"""Suite-wide test configuration."""

from pathlib import Path

import pytest


def pytest_collection_modifyitems(items):
    # the CLI prints the warnings Python's filters let through: its tests run under
    # Python's default filters, not the suite's quieter ones (pyproject.toml)
    for item in items:
        if Path(str(item.fspath)).name.startswith("test_cli"):
            item.add_marker(pytest.mark.filterwarnings("default"))

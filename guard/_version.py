"""The version of the ``inband-guard`` distribution (read by the build and the CLI)."""

__version__ = "0.2.0"

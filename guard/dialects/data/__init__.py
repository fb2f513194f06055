"""The built-in dialect records, one TOML file each (read by :mod:`guard.dialects._load`; the
format: docs/dialects.md, "A dialect as a TOML file")."""

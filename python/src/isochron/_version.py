"""The package's version: the one place Python reads it from (pyproject.toml takes it from here,
``isochron.__version__`` and the reports re-export it). It must equal CMakeLists.txt's project
VERSION, which the C library and drivers report: tests/packaging/check_versions.py checks it."""
__version__ = "0.1.0"

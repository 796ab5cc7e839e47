#!/bin/sh
# The tests need Locust (from PyPI): a virtualenv here holds it, made once, so the system Python is left alone.
set -eu
cd "$(dirname "$0")"
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import locust, pytest' 2>/dev/null; then
  python3 -m venv .venv
  .venv/bin/pip install -q -e '.[test]'
fi
exec .venv/bin/python -m pytest -q tests "$@"

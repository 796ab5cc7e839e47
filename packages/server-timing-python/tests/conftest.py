import os
import sys

# The tests run against the source tree, installed or not.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

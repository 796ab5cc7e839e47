"""
kneeboard-locust: import it in a locustfile and every request of the run is streamed to Kneeboard
(``--kneeboard-api``, ``--kneeboard-service``, ``--kneeboard-release``), the total user count as
the level. See plugin.py for who does what between master and workers.
"""

from .plugin import KneeboardPlugin

__all__ = ["KneeboardPlugin"]

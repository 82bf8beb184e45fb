"""A play-by-email Diplomacy judge.

``judge.engine`` is the pure rules engine (standard library only); the rest of the
package (mail, storage, services, command line) stands on it.
"""

__version__ = "0.1.0"

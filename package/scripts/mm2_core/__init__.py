"""Pure core of the MirrorMaker 2 mpack: no Ambari imports, Python 2.7 and 3.

The agent scripts, the service advisor, the alert scripts, build.py and the off-cluster
tools all use this package, so every fact (names, defaults, version rules) lives here once.
"""

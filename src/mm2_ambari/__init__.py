"""mm2-ambari: off-cluster command-line tool of the MirrorMaker 2 mpack (Python 3)."""

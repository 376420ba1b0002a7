"""`mm2-ambari upgrade`: a cluster brought to the mpack release on its Ambari server (`commands`), from what the
release holds (`release`: version, alert definitions, property names, release history)."""

"""The replication model: Topology (clusters, flows, settings), parsed from the configurations in either input mode, validated, and placed on driver hosts."""

"""Disaster recovery, the pure part: the cut-over gate (cutover), where a failed-over group starts (translation),
what a failover or failback does to groups and flows (failover) and where a flow's source positions live and how
they are changed (flow_positions). The agent's commands (mm2_cutover, mm2_export, mm2_flow_seed,
mm2_flow_positions) gather the facts with the Kafka boundary (mm2_core.kafkatools) and call these."""

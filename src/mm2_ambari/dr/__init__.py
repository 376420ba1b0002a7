"""Disaster recovery from the command line: `cutover check`, `failover`, `failback` and `drill` (`commands`,
thin) around their plans (`plan`: resumable steps, state files, history)."""

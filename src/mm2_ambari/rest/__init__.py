"""The REST operations (deploy, configure, restart, status, alerts, check, run, flow, remove-host, remove): the
deployment file, configuration planning and applying, and every command's session with Ambari (`session`)."""

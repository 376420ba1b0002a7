"""The commands that need no Ambari server: `render` (the files the agent writes) and `validate` (a deployment
file checked as deploy checks it)."""

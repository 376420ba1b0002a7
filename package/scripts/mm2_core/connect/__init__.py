"""Connect mode: MM2's connectors on a Kafka Connect worker (the worker and connector configs from the model), the
loopback REST client of its control plane, and per-flow control and self-healing rules."""

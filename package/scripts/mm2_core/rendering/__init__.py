"""The files MM2 reads (connect-mirror-maker.properties, secrets) and the env/log4j template variables, rendered from the model."""

"""The MM2 alerts: configuration, exporter fetch, metric parsing, state between runs, evaluation, the common runner."""

"""The service's configuration as Ambari holds it: names, the property catalog (schema), reading values, findings (problems), this cluster's own Kafka."""

"""Facts about Kafka per version: the versions and feature gates, the MM2 key table, the generated client/worker key lists, the replication policies."""

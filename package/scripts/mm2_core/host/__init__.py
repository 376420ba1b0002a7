"""Operations on a driver host: the MM2 process, the installation, Kafka's command-line tools."""

"""Kafka client, Connect worker and Connect connector configuration names per Kafka line.

Data only: the names were read from the Kafka sources (ProducerConfig, ConsumerConfig, AdminClientConfig,
CommonClientConfigs, SslConfigs, SaslConfigs, SecurityConfig, WorkerConfig, DistributedConfig,
ConnectorConfig, SourceConnectorConfig, SourceTask) at the tags 2.4.1, 2.5.1, 2.6.3, 2.7.2, 2.8.2,
3.0.2, 3.1.2, 3.2.3, 3.3.2, 3.4.1, 3.5.2, 3.6.2, 3.7.1, 3.8.0, 3.9.0-rc3 and trunk of 2024-10 (4.0).
Each row is "name first [removed]" with x.y versions; the MM2 keys themselves live in versions.py.
"""

COMMON_CLIENT = """
auto.include.jmx.reporter 3.4 4.0
bootstrap.servers 2.4
client.dns.lookup 2.4
client.id 2.4
client.rack 2.4
connections.max.idle.ms 2.4
enable.metrics.push 3.7
group.id 2.4
group.instance.id 2.4
heartbeat.interval.ms 2.4
max.poll.interval.ms 2.4
metadata.max.age.ms 2.4
metadata.recovery.strategy 3.8
metric.reporters 2.4
metrics.num.samples 2.4
metrics.recording.level 2.4
metrics.sample.window.ms 2.4
rebalance.timeout.ms 2.4
receive.buffer.bytes 2.4
reconnect.backoff.max.ms 2.4
reconnect.backoff.ms 2.4
request.timeout.ms 2.4
retries 2.4
retry.backoff.max.ms 3.7
retry.backoff.ms 2.4
sasl.client.callback.handler.class 2.4
sasl.jaas.config 2.4
sasl.kerberos.kinit.cmd 2.4
sasl.kerberos.min.time.before.relogin 2.4
sasl.kerberos.service.name 2.4
sasl.kerberos.ticket.renew.jitter 2.4
sasl.kerberos.ticket.renew.window.factor 2.4
sasl.login.callback.handler.class 2.4
sasl.login.class 2.4
sasl.login.connect.timeout.ms 3.1
sasl.login.read.timeout.ms 3.1
sasl.login.refresh.buffer.seconds 2.4
sasl.login.refresh.min.period.seconds 2.4
sasl.login.refresh.window.factor 2.4
sasl.login.refresh.window.jitter 2.4
sasl.login.retry.backoff.max.ms 3.1
sasl.login.retry.backoff.ms 3.1
sasl.mechanism 2.4
sasl.oauthbearer.clock.skew.seconds 3.1
sasl.oauthbearer.expected.audience 3.1
sasl.oauthbearer.expected.issuer 3.1
sasl.oauthbearer.header.urlencode 3.9
sasl.oauthbearer.jwks.endpoint.refresh.ms 3.1
sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms 3.1
sasl.oauthbearer.jwks.endpoint.retry.backoff.ms 3.1
sasl.oauthbearer.jwks.endpoint.url 3.1
sasl.oauthbearer.scope.claim.name 3.1
sasl.oauthbearer.sub.claim.name 3.1
sasl.oauthbearer.token.endpoint.url 3.1
security.protocol 2.4
security.providers 2.4
send.buffer.bytes 2.4
session.timeout.ms 2.4
socket.connection.setup.timeout.max.ms 2.7
socket.connection.setup.timeout.ms 2.7
ssl.cipher.suites 2.4
ssl.enabled.protocols 2.4
ssl.endpoint.identification.algorithm 2.4
ssl.engine.factory.class 2.6
ssl.key.password 2.4
ssl.keymanager.algorithm 2.4
ssl.keystore.certificate.chain 2.7
ssl.keystore.key 2.7
ssl.keystore.location 2.4
ssl.keystore.password 2.4
ssl.keystore.type 2.4
ssl.protocol 2.4
ssl.provider 2.4
ssl.secure.random.implementation 2.4
ssl.trustmanager.algorithm 2.4
ssl.truststore.certificates 2.7
ssl.truststore.location 2.4
ssl.truststore.password 2.4
ssl.truststore.type 2.4
"""

PRODUCER = """
acks 2.4
batch.size 2.4
buffer.memory 2.4
compression.gzip.level 3.8
compression.lz4.level 3.8
compression.type 2.4
compression.zstd.level 3.8
delivery.timeout.ms 2.4
enable.idempotence 2.4
interceptor.classes 2.4
internal.auto.downgrade.txn.commit 2.6 3.0
key.serializer 2.4
linger.ms 2.4
max.block.ms 2.4
max.in.flight.requests.per.connection 2.4
max.request.size 2.4
metadata.max.idle.ms 2.5
partitioner.adaptive.partitioning.enable 3.3
partitioner.availability.timeout.ms 3.3
partitioner.class 2.4
partitioner.ignore.keys 3.3
retries 2.4
transaction.timeout.ms 2.4
transactional.id 2.4
value.serializer 2.4
"""

CONSUMER = """
allow.auto.create.topics 2.4
auto.commit.interval.ms 2.4
auto.offset.reset 2.4
check.crcs 2.4
enable.auto.commit 2.4
exclude.internal.topics 2.4
fetch.max.bytes 2.4
fetch.max.wait.ms 2.4
fetch.min.bytes 2.4
group.protocol 3.7
group.remote.assignor 3.7
interceptor.classes 2.4
internal.leave.group.on.close 2.4
internal.throw.on.fetch.stable.offset.unsupported 2.6
isolation.level 2.4
key.deserializer 2.4
max.partition.fetch.bytes 2.4
max.poll.records 2.4
partition.assignment.strategy 2.4
value.deserializer 2.4
"""

ADMIN = """
bootstrap.controllers 3.7
retries 2.4
"""

WORKER = """
auto.include.jmx.reporter 3.4 4.0
bootstrap.servers 2.4
client.dns.lookup 2.4
config.providers 2.4
config.storage.replication.factor 2.4
config.storage.topic 2.4
connect.protocol 2.4
connector.client.config.override.policy 2.4
exactly.once.source.support 3.3
group.id 2.4
header.converter 2.4
heartbeat.interval.ms 2.4
inter.worker.key.generation.algorithm 2.4
inter.worker.key.size 2.4
inter.worker.key.ttl.ms 2.4
inter.worker.signature.algorithm 2.4
inter.worker.verification.algorithms 2.4
internal.key.converter 2.4 3.0
internal.value.converter 2.4 3.0
key.converter 2.4
metadata.recovery.strategy 3.8
metric.reporters 2.4
metrics.num.samples 2.4
metrics.recording.level 2.4
metrics.sample.window.ms 2.4
offset.flush.interval.ms 2.4
offset.flush.timeout.ms 2.4
offset.storage.partitions 2.4
offset.storage.replication.factor 2.4
offset.storage.topic 2.4
plugin.discovery 3.6
plugin.path 2.4
rebalance.timeout.ms 2.4
scheduled.rebalance.max.delay.ms 2.4
session.timeout.ms 2.4
status.storage.partitions 2.4
status.storage.replication.factor 2.4
status.storage.topic 2.4
task.shutdown.graceful.timeout.ms 2.4
topic.creation.enable 2.6
topic.tracking.allow.reset 2.5
topic.tracking.enable 2.5
value.converter 2.4
worker.sync.timeout.ms 2.4
worker.unsync.backoff.ms 2.4
"""

CONNECTOR = """
config.action.reload 2.4
connector.class 2.4
errors.log.enable 2.4
errors.log.include.messages 2.4
errors.retry.delay.max.ms 2.4
errors.retry.timeout 2.4
errors.tolerance 2.4
exactly.once.support 3.3
header.converter 2.4
key.converter 2.4
name 2.4
offsets.storage.topic 3.3
predicates 2.6
tasks.max 2.4
tasks.max.enforce 3.8
topic.creation.groups 2.6
transaction.boundary 3.3
transaction.boundary.interval.ms 3.3
transforms 2.4
value.converter 2.4
"""

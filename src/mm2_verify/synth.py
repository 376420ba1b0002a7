"""Generate a mirrored source/target pair in Spark's Kafka schema, with faults injected at
known positions, entirely in Spark (no Python loop over records).

Record i of the source stream goes to topic `t{i % topics}`, partition `(i // topics) % partitions`,
at offset j = i // (topics * partitions); its key is `k{j % keys}` (so the same-key predecessor
of a record sits `keys` offsets earlier in the same partition), its timestamp `base + i * step`.

Faults (each chosen by arithmetic on i, so the expected counts are known exactly):
  drops      first `drops` records with i % stride == phase: absent from the target (missing)
  duplicates target carries a second copy later, after two newer records of the same key
             (an at-least-once replay; first copies stay in order)
  reorders   the target copy moves before its same-key predecessor (one order violation each)
  extras     target-only records: a real record's timestamp and key, a different value
  tail       the last `tail` source records are not on the target yet (pending with a
             pending window of tail * step ms)
Target offsets keep the target order without a window: normal 8j, duplicate 8(j+2*keys)+2,
extra 8j+1, reordered 8(j-keys)-3 (distinct residues mod 8, so never equal).
"""
from dataclasses import dataclass

from pyspark.sql import functions as F

HEADERS_TYPE = "array<struct<key:string,value:binary>>"  # Spark's Kafka source, all nullable
PHASES = {"drops": 101, "duplicates": 203, "reorders": 307, "extras": 409}


@dataclass(frozen=True)
class Faults:
    drops: int = 0
    duplicates: int = 0
    reorders: int = 0
    extras: int = 0
    tail: int = 0


@dataclass(frozen=True)
class Layout:
    records: int
    topics: int = 1
    partitions: int = 4
    keys: int = 50
    stride: int = 997
    step_ms: int = 1
    base_ms: int = 1_700_000_000_000
    value_bytes: int = 64
    source_alias: str = "primary"
    separator: str = "."
    policy: str = "prefixed"
    first_fault: int = 0  # faults hit records first_fault + m * stride + phase

    @property
    def lanes(self):
        return self.topics * self.partitions

    @property
    def target_prefix(self):
        return "" if self.policy == "identity" else self.source_alias + self.separator

    def position(self, i):
        """(topic, partition, offset) of source record i."""
        return "t%d" % (i % self.topics), (i // self.topics) % self.partitions, i // self.lanes

    def fault_indexes(self, name, count):
        """The source record numbers a fault of this kind hits."""
        return [self.first_fault + m * self.stride + PHASES[name] for m in range(count)]


def check_layout(layout, faults):
    """Raise ValueError when the fault positions could collide or not fit."""
    pred_shift = (layout.keys * layout.lanes) % layout.stride
    phases = set(PHASES.values())
    if (PHASES["reorders"] - pred_shift) % layout.stride in phases:
        raise ValueError("a reordered record's predecessor would be another fault; change keys or stride")
    if any(p >= layout.stride for p in phases):
        raise ValueError("stride must exceed every phase")
    for name, phase in PHASES.items():
        count = getattr(faults, name)
        if count and layout.first_fault + (count - 1) * layout.stride + phase >= layout.records - faults.tail:
            raise ValueError("%d %s do not fit before the tail; raise records or lower the count" % (count, name))
    if faults.reorders and layout.first_fault + PHASES["reorders"] < layout.keys * layout.lanes:
        raise ValueError("the first reorder has no same-key predecessor; lower keys or raise first_fault")


def _fault(i, layout, name, count):
    if not count:
        return F.lit(False)
    k = i - layout.first_fault
    return (k >= 0) & (k % layout.stride == PHASES[name]) & (k < count * layout.stride)


def _payload(i, size):
    """size bytes of hex digits derived from i (compresses like real payloads, not like 'xxx')."""
    chunks = [F.sha2(F.concat(i.cast("string"), F.lit("/%d" % n)), 512) for n in range((size + 127) // 128)]
    return F.substring(F.concat(*chunks), 1, size) if chunks else F.lit("")


def source_frame(spark, layout):
    i = F.col("id")
    lanes = layout.lanes
    j = (i / lanes).cast("long")
    topic = F.concat(F.lit("t"), (i % layout.topics).cast("string"))
    return spark.range(layout.records).select(
        i.alias("i"),
        F.concat(F.lit("k"), (j % layout.keys).cast("string")).cast("binary").alias("key"),
        F.concat(F.lit("value-"), i.cast("string"), F.lit("-"), _payload(i, layout.value_bytes)).cast("binary")
         .alias("value"),
        topic.alias("topic"),
        ((i / layout.topics).cast("long") % layout.partitions).cast("int").alias("partition"),
        j.alias("offset"),
        F.expr("timestamp_millis(%d + id * %d)" % (layout.base_ms, layout.step_ms)).alias("timestamp"),
        F.lit(0).alias("timestampType"),
        F.when(i % 3 == 0, F.array(F.struct(F.lit("trace").alias("key"),
                                            i.cast("string").cast("binary").alias("value"))))
         .cast(HEADERS_TYPE).alias("headers"),
    )


KAFKA_ORDER = ("key", "value", "topic", "partition", "offset", "timestamp", "timestampType", "headers")


def mirrored_pair(spark, layout, faults):
    """(source DataFrame, target DataFrame) in Spark's Kafka schema column order."""
    check_layout(layout, faults)
    src = source_frame(spark, layout)
    i, j = F.col("i"), F.col("offset")
    prefix = layout.target_prefix
    dropped = _fault(i, layout, "drops", faults.drops) | (i >= layout.records - faults.tail)
    reordered = _fault(i, layout, "reorders", faults.reorders)
    kept = src.where(~dropped).withColumn("topic", F.concat(F.lit(prefix), F.col("topic")))
    base = kept.withColumn(
        "offset", F.when(reordered, (j - layout.keys) * 8 - 3).otherwise(j * 8))
    dups = kept.where(_fault(i, layout, "duplicates", faults.duplicates)).withColumn("offset", (j + 2 * layout.keys) * 8 + 2)
    extras = kept.where(_fault(i, layout, "extras", faults.extras)).withColumn(
        "value", F.concat(F.lit("extra-"), F.col("value"))).withColumn("offset", j * 8 + 1)
    target = base.unionByName(dups).unionByName(extras)
    return src.select(*KAFKA_ORDER), target.select(*KAFKA_ORDER)


def expected(layout, faults):
    """The counts a correct verification reports for this pair."""
    source = layout.records
    return {
        "source_records": source,
        "target_records": source - faults.drops - faults.tail + faults.duplicates + faults.extras,
        "matched": source - faults.drops - faults.tail,
        "missing": faults.drops,
        "pending": faults.tail,
        "duplicates": faults.duplicates,
        "extra": faults.extras,
        "order_violations": faults.reorders,
    }


def write_pair(spark, layout, faults, source_path, target_path, fmt="parquet"):
    src, tgt = mirrored_pair(spark, layout, faults)
    for frame, path in ((src, source_path), (tgt, target_path)):
        frame.write.mode("overwrite").format(fmt).save(path)
    return expected(layout, faults)

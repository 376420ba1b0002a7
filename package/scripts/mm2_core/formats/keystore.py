"""Aliases of the private-key entries of a Java keystore (JKS, JCEKS or PKCS12), without its password.

Pure stdlib, Python 2.7 and 3. The JMX exporter's HTTPS server (0.20.0 to at least 1.5.0)
requires httpServer.ssl.certificate.alias and exits the JVM without it; when the operator leaves
kafka-mm2-env/mm2_metrics_ssl_certificate_alias empty, the driver takes the alias of the
keystore's only private key. Both formats keep aliases readable without the password: JKS
stores them in clear, PKCS12 (as keytool and openssl write it) puts the friendlyName
attribute of the shrouded key bag in an unencrypted SafeContents.
"""
import struct

JKS_MAGIC = 0xFEEDFEED
JCEKS_MAGIC = 0xCECECECE

# DER-encoded OIDs (tag and length included)
_DATA = b"\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x07\x01"
_SHROUDED_KEY_BAG = b"\x06\x0b\x2a\x86\x48\x86\xf7\x0d\x01\x0c\x0a\x01\x02"
_KEY_BAG = b"\x06\x0b\x2a\x86\x48\x86\xf7\x0d\x01\x0c\x0a\x01\x01"
_FRIENDLY_NAME = b"\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x09\x14"


class KeystoreError(ValueError):
    pass


def _bytes(data):
    return bytearray(data)


def _jks_aliases(data):
    buf = _bytes(data)
    pos = [0]

    def take(n):
        if pos[0] + n > len(buf):
            raise KeystoreError("the keystore ends early")
        chunk = buf[pos[0]:pos[0] + n]
        pos[0] += n
        return chunk

    def u4():
        return struct.unpack(">I", bytes(take(4)))[0]

    def utf():
        n = struct.unpack(">H", bytes(take(2)))[0]
        return bytes(take(n)).decode("utf-8", "replace")

    u4()   # magic
    version = u4()
    count = u4()
    keys = []
    for _ in range(count):
        tag = u4()
        alias = utf()
        take(8)   # creation date
        if tag == 1:   # private key: protected key, then the certificate chain
            keys.append(alias)
            take(u4())
            for _ in range(u4()):
                if version == 2:
                    utf()
                take(u4())
        elif tag == 2:   # trusted certificate
            if version == 2:
                utf()
            take(u4())
        else:            # a JCEKS secret key (serialized object): nothing we need comes after reliably
            break
    return keys


def _der(buf, pos):
    """(tag, content start, content end) of the DER element at pos."""
    if pos + 2 > len(buf):
        raise KeystoreError("truncated DER")
    tag = buf[pos]
    length = buf[pos + 1]
    pos += 2
    if length & 0x80:
        n = length & 0x7F
        if n == 0 or n > 4 or pos + n > len(buf):
            raise KeystoreError("unsupported DER length (indefinite BER encoding?)")
        length = 0
        for b in buf[pos:pos + n]:
            length = (length << 8) | b
        pos += n
    if pos + length > len(buf):
        raise KeystoreError("truncated DER")
    return tag, pos, pos + length


def _children(buf, start, end):
    out = []
    pos = start
    while pos < end:
        tag, cstart, cend = _der(buf, pos)
        out.append((tag, cstart, cend, pos))
        pos = cend
    return out


def _p12_aliases(data):
    buf = _bytes(data)
    _, s, e = _der(buf, 0)
    pfx = _children(buf, s, e)
    if len(pfx) < 2:
        raise KeystoreError("not a PKCS12 file")
    _, s, e, _ = pfx[1]                      # authSafe ContentInfo
    info = _children(buf, s, e)
    if bytes(buf[info[0][3]:info[0][2]]) != _DATA:
        raise KeystoreError("PKCS12 authSafe is not plain data (public-key integrity mode)")
    _, s, e = _der(buf, info[1][1])          # [0] EXPLICIT -> OCTET STRING
    _, s, e = _der(buf, s)                   # AuthenticatedSafe SEQUENCE
    keys = []
    for _, cs, ce, _ in _children(buf, s, e):
        content = _children(buf, cs, ce)
        if bytes(buf[content[0][3]:content[0][2]]) != _DATA or len(content) < 2:
            continue                         # encryptedData: certificates, not readable without password
        _, os_, oe = _der(buf, content[1][1])
        _, ss, se = _der(buf, os_)           # SafeContents SEQUENCE
        for _, bs, be, _ in _children(buf, ss, se):
            bag = _children(buf, bs, be)
            if bytes(buf[bag[0][3]:bag[0][2]]) not in (_SHROUDED_KEY_BAG, _KEY_BAG):
                continue
            name = None
            for tag, as_, ae, _ in bag[2:]:
                if tag != 0x31:
                    continue
                for _, xs, xe, _ in _children(buf, as_, ae):
                    attr = _children(buf, xs, xe)
                    if bytes(buf[attr[0][3]:attr[0][2]]) == _FRIENDLY_NAME:
                        _, vs, ve = _der(buf, attr[1][1])   # SET -> BMPString
                        name = bytes(buf[vs:ve]).decode("utf-16-be", "replace")
            keys.append(name)
    return keys


def private_key_aliases(data):
    """Aliases of the private-key entries in keystore bytes (None for a PKCS12 key without a name)."""
    if len(data) >= 4:
        magic = struct.unpack(">I", bytes(_bytes(data[:4])))[0]
        if magic in (JKS_MAGIC, JCEKS_MAGIC):
            return _jks_aliases(data)
    try:
        return _p12_aliases(data)
    except (IndexError, KeystoreError) as e:
        raise KeystoreError("neither JKS nor a readable PKCS12 keystore (%s)" % e)


def certificate_alias(path, configured="", prop="kafka-mm2-env/mm2_metrics_ssl_certificate_alias"):
    """The alias the exporter must serve: the configured one, else the keystore's only private key.
    Raises KeystoreError with what to set when it cannot be derived."""
    if configured and configured.strip():
        return configured.strip()
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except (IOError, OSError) as e:
        raise KeystoreError("cannot read the metrics keystore %s to find the certificate alias (%s): set %s"
                            % (path, e, prop))
    try:
        aliases = private_key_aliases(data)
    except KeystoreError as e:
        raise KeystoreError("cannot find the certificate alias in the metrics keystore %s: %s; set %s"
                            % (path, e, prop))
    named = [a for a in aliases if a]
    if len(aliases) == 1 and named:
        return named[0]
    if not aliases:
        raise KeystoreError("the metrics keystore %s holds no private key entry, so the exporter cannot serve "
                            "HTTPS with it: use a keystore with the host's key and certificate" % path)
    raise KeystoreError("the metrics keystore %s holds %d private keys (%s): set %s to the one the exporter "
                        "serves" % (path, len(aliases), ", ".join(a or "(unnamed)" for a in aliases), prop))

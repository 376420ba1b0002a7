"""The KDC helper gives a working realm: a real kinit with the exported keytab succeeds, a wrong
principal for that keytab is refused (the Kerberos e2e cases build on both)."""
import os

import pytest

from realkafka import security as sec


@pytest.fixture
def kdc(tmp_path):
    reason = sec.kdc_skip_reason()
    if reason:
        pytest.skip(reason)
    with sec.Kdc(tmp_path) as running:
        yield running
    assert running.process.poll() is not None, "krb5kdc still running after stop"


def test_kinit_with_exported_keytab(kdc, tmp_path):
    keytab = str(tmp_path / "keytabs" / "mm2.service.keytab")
    principal = kdc.add_principal("mm2/localhost", keytab)
    assert principal == "mm2/localhost@MM2.TEST"
    assert oct(os.stat(keytab).st_mode & 0o777) == "0o600"
    result = kdc.kinit(principal, keytab, str(tmp_path / "ccache"))
    assert result.returncode == 0, result.stderr
    assert os.path.getsize(str(tmp_path / "ccache")) > 0


def test_kinit_refuses_a_principal_the_keytab_does_not_hold(kdc, tmp_path):
    keytab = str(tmp_path / "keytabs" / "mm2.service.keytab")
    kdc.add_principal("mm2/localhost", keytab)
    kdc.add_principal("other/localhost", str(tmp_path / "keytabs" / "other.keytab"))
    result = kdc.kinit("other/localhost", keytab, str(tmp_path / "ccache"))
    assert result.returncode != 0
    assert "other/localhost@MM2.TEST" in result.stderr

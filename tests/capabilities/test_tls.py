"""TLS through a pinned connection: the socket goes to the checked address, SNI and the
certificate check use the name."""

from __future__ import annotations

import datetime
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from dyntools.capabilities import HttpFailure

from .conftest import TOKEN, get
from .servers import LocalServer

NAME = "api.example.test"


def _certificate(tmp: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, NAME)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(NAME)]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = tmp / "cert.pem", tmp / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


@pytest.fixture
def tls_server(tmp_path) -> Iterator[tuple[LocalServer, ssl.SSLContext, list[str]]]:
    cert, key = _certificate(tmp_path)
    names: list[str] = []
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(cert, key)
    server_context.sni_callback = lambda sock, name, ctx: names.append(name)
    client_context = ssl.create_default_context(cafile=str(cert))
    with LocalServer(tls=server_context) as srv:
        yield srv, client_context, names


def test_https_to_a_pinned_address_checks_the_certificate_against_the_name(harness,
                                                                            tls_server):
    server, context, names = tls_server
    host = f"{NAME}:{server.port}"
    broker = harness.broker([host], resolver=lambda h, p: ["127.0.0.1"], ssl_context=context,
                            secrets={"DEMO_TOKEN": {"env": "DEMO_TOKEN", "hosts": [host]}})
    session = harness.session(broker, [host], secrets=["DEMO_TOKEN"])
    answer = get(session, f"https://{host}/echo-secret")
    assert answer["status"] == 200
    assert names == [NAME]  # SNI is the name, not the address
    assert server.requests[0]["headers"]["host"] == host
    assert server.requests[0]["headers"]["authorization"] == f"Bearer {TOKEN}"
    assert TOKEN not in answer["text"]


def test_a_certificate_for_another_name_fails_as_tls(harness, tls_server):
    server, context, _ = tls_server
    host = f"other.example.test:{server.port}"
    broker = harness.broker([host], resolver=lambda h, p: ["127.0.0.1"], ssl_context=context)
    session = harness.session(broker, [host])
    with pytest.raises(HttpFailure) as info:
        get(session, f"https://{host}/echo")
    assert info.value.kind == "tls"
    assert server.requests == []


def test_an_address_url_is_not_covered_by_a_name_certificate(harness, tls_server):
    server, context, _ = tls_server
    broker = harness.broker([server.hostport], ssl_context=context)
    session = harness.session(broker, [server.hostport])
    with pytest.raises(HttpFailure) as info:
        get(session, f"https://{server.hostport}/echo")
    assert info.value.kind == "tls"


def test_the_default_trust_store_refuses_a_self_signed_certificate(harness, tls_server):
    server, _, _ = tls_server
    host = f"{NAME}:{server.port}"
    broker = harness.broker([host], resolver=lambda h, p: ["127.0.0.1"])
    session = harness.session(broker, [host])
    with pytest.raises(HttpFailure) as info:
        get(session, f"https://{host}/echo")
    assert info.value.kind == "tls"

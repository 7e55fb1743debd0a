"""The certificate authority of the download proxy: made when first needed, for one emulator's life.

A runtime downloads a media URL of the case's input over ``https`` (``https://example.com/cat.png``);
through the emulator's proxy that is a ``CONNECT``, after which the emulator speaks TLS as that host,
with a certificate this authority signs for it, so that the runtime's own HTTP library (pointed at the
authority's ``ca_file``) reads the fixture bytes as it would read the real file. The keys live in a
temporary folder removed at ``close``; the authority signs for nothing but the hosts it is asked for,
and a client that does not trust it fails its handshake (kept as a refused request).

Built with ``cryptography`` (google-auth's, and so google-genai's, dependency): elliptic-curve keys,
a day of validity.
"""

from __future__ import annotations

import datetime
import ipaddress
import shutil
import ssl
import tempfile
import threading
from pathlib import Path


class Authority:
    """An ephemeral certificate authority and the server contexts it makes, one per host."""

    def __init__(self) -> None:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID

        self._folder = Path(tempfile.mkdtemp(prefix="wireconf-emulator-"))
        self._key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "wireconf emulator (ephemeral)")])
        now = datetime.datetime.now(datetime.UTC)
        self._name = name
        self._certificate = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(self._key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    key_cert_sign=True,
                    crl_sign=True,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(self._key.public_key()), critical=False)
            .sign(self._key, hashes.SHA256())
        )
        self._pem = self._certificate.public_bytes(serialization.Encoding.PEM)
        self.ca_file = self._folder / "ca.pem"
        self.ca_file.write_bytes(self._pem)
        self._contexts: dict[str, ssl.SSLContext] = {}
        self._lock = threading.Lock()

    def context(self, host: str) -> ssl.SSLContext:
        """A server context that presents a certificate for ``host`` signed by this authority."""
        with self._lock:
            found = self._contexts.get(host)
            if found is None:
                found = self._contexts[host] = self._make(host)
            return found

    def _make(self, host: str) -> ssl.SSLContext:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

        key = ec.generate_private_key(ec.SECP256R1())
        try:
            alternative: x509.GeneralName = x509.IPAddress(ipaddress.ip_address(host))
        except ValueError:
            alternative = x509.DNSName(host)
        now = datetime.datetime.now(datetime.UTC)
        certificate = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host[:64])]))
            .issuer_name(self._name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([alternative]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(self._key.public_key()), critical=False
            )
            .sign(self._key, hashes.SHA256())
        )
        stem = self._folder / f"host-{len(self._contexts)}"
        chain, key_file = stem.with_suffix(".pem"), stem.with_suffix(".key")
        chain.write_bytes(certificate.public_bytes(serialization.Encoding.PEM) + self._pem)
        key_file.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(chain, key_file)
        return context

    def close(self) -> None:
        shutil.rmtree(self._folder, ignore_errors=True)

//! TLS to the database, with rustls (the TLS stack tonic serves with), as libpq's `sslmode`
//! says:
//!
//! - `disable`: plain text.
//! - `prefer` (libpq's default) and `require`: encrypted if the server offers it (`require`:
//!   or refused); without `--store-ca` the server's certificate is not checked, as libpq does
//!   without a root certificate, so this guards against eavesdropping, not impersonation.
//! - `verify-full`: encrypted, the certificate chain checked against `--store-ca` and the host
//!   name (or IP address) against the certificate. Needs `--store-ca`.
//! - With `--store-ca`, every encrypted connection is checked as `verify-full` checks it.
//!
//! tokio-postgres knows only disable/prefer/require: `verify-full` is read here and the
//! connection string given to tokio-postgres says `require`. `verify-ca` (a chain check
//! without the host name) is refused with a word to use `verify-full`.

use std::future::Future;
use std::io;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_postgres::tls::{ChannelBinding, MakeTlsConnect, TlsConnect};
use tokio_rustls::TlsConnector;

use super::Error;

/// How connections to the database are made: the connection string for tokio-postgres and
/// the TLS connector that goes with it.
#[derive(Clone)]
pub struct StoreTls {
    config: Arc<ClientConfig>,
}

/// The connection string with `sslmode=verify-full` said as tokio-postgres knows it, and the
/// connector; a clear error for a mode this build does not offer or a CA file it cannot read.
pub fn configure(url: &str, ca: Option<&Path>) -> Result<(String, StoreTls), Error> {
    let (url, verify_full) = read_sslmode(url)?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::Storage(format!("postgres TLS: {e}")))?;
    let config = match ca {
        Some(ca) => builder
            .with_root_certificates(roots(ca)?)
            .with_no_client_auth(),
        None if verify_full => {
            return Err(Error::Storage(
                "--store: sslmode=verify-full needs the certificate authority that signed the \
                 database's certificate: give it with --store-ca FILE (PEM)"
                    .into(),
            ));
        }
        None => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Unchecked { provider }))
            .with_no_client_auth(),
    };
    Ok((
        url,
        StoreTls {
            config: Arc::new(config),
        },
    ))
}

/// `url` with `sslmode=verify-full` replaced by `require`, and whether it was there.
fn read_sslmode(url: &str) -> Result<(String, bool), Error> {
    const FULL: &str = "sslmode=verify-full";
    if url.contains("sslmode=verify-ca") {
        return Err(Error::Storage(
            "--store: sslmode=verify-ca is not offered (it checks the certificate but not \
             which server it names): use sslmode=verify-full with --store-ca FILE"
                .into(),
        ));
    }
    if url.contains(FULL) {
        return Ok((url.replace(FULL, "sslmode=require"), true));
    }
    Ok((url.to_owned(), false))
}

/// The certificates of the PEM file `path`, as roots.
fn roots(path: &Path) -> Result<RootCertStore, Error> {
    let unreadable = |e: &dyn std::fmt::Display| {
        Error::Storage(format!(
            "--store-ca {}: not a readable PEM certificate file: {e}",
            path.display()
        ))
    };
    let mut roots = RootCertStore::empty();
    let certificates = CertificateDer::pem_file_iter(path).map_err(|e| unreadable(&e))?;
    for certificate in certificates {
        let certificate = certificate.map_err(|e| unreadable(&e))?;
        roots.add(certificate).map_err(|e| unreadable(&e))?;
    }
    if roots.is_empty() {
        return Err(unreadable(&"it holds no certificate"));
    }
    Ok(roots)
}

/// `prefer`/`require` without a CA: the certificate is taken as it is (libpq's behaviour
/// without a root certificate); the handshake's signatures are still checked, so the channel
/// is encrypted to whoever holds the certificate's key.
#[derive(Debug)]
struct Unchecked {
    provider: Arc<rustls::crypto::CryptoProvider>,
}

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

impl<S> MakeTlsConnect<S> for StoreTls
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = Encrypted<S>;
    type TlsConnect = Connect;
    type Error = io::Error;

    fn make_tls_connect(&mut self, domain: &str) -> Result<Connect, io::Error> {
        let name = ServerName::try_from(domain.to_owned())
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        Ok(Connect {
            connector: TlsConnector::from(Arc::clone(&self.config)),
            name,
        })
    }
}

/// One connection's handshake, to the host it names.
pub struct Connect {
    connector: TlsConnector,
    name: ServerName<'static>,
}

impl<S> TlsConnect<S> for Connect
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = Encrypted<S>;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = io::Result<Encrypted<S>>> + Send>>;

    fn connect(self, stream: S) -> Self::Future {
        Box::pin(async move {
            let stream = self.connector.connect(self.name, stream).await?;
            Ok(Encrypted(Box::new(stream)))
        })
    }
}

/// An encrypted connection to the database.
pub struct Encrypted<S>(Box<tokio_rustls::client::TlsStream<S>>);

impl<S: AsyncRead + AsyncWrite + Unpin> tokio_postgres::tls::TlsStream for Encrypted<S> {
    /// None: SCRAM then authenticates without binding to this channel (tokio-postgres'
    /// default `channel_binding=prefer` accepts that).
    fn channel_binding(&self) -> ChannelBinding {
        ChannelBinding::none()
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for Encrypted<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.0).poll_read(cx, buf)
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for Encrypted<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut *self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.0).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verify_full_is_said_as_require_and_needs_a_ca() {
        let (url, full) = read_sslmode("host=db sslmode=verify-full").expect("read");
        assert_eq!((url.as_str(), full), ("host=db sslmode=require", true));
        let (url, full) = read_sslmode("postgres://db/x?sslmode=require").expect("read");
        assert_eq!(
            (url.as_str(), full),
            ("postgres://db/x?sslmode=require", false)
        );
        let refused = configure("host=db sslmode=verify-full", None)
            .err()
            .expect("no CA");
        assert!(refused.to_string().contains("--store-ca"), "{refused}");
        let refused = read_sslmode("host=db sslmode=verify-ca").expect_err("verify-ca");
        assert!(refused.to_string().contains("verify-full"), "{refused}");
        let missing = configure("host=db", Some(Path::new("/nonexistent/ca.pem")))
            .err()
            .expect("no file");
        assert!(
            missing.to_string().contains("/nonexistent/ca.pem"),
            "{missing}"
        );
    }
}

//! Talking to a running server from the command line (`referee import --server URL`): the
//! connection, over TLS when the URL says `https`, with the caller's bearer token.

use std::path::Path;

use tonic::metadata::MetadataValue;
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};

use crate::service::proto::referee_client::RefereeClient;

/// The environment variable a token is read from when no `--token-file` is given; a token on
/// the command line would show in `ps`.
pub const TOKEN_ENV: &str = "REFEREE_TOKEN";

/// Where to reach the server and as whom.
pub struct Remote<'a> {
    /// `http://HOST:PORT` or `https://HOST:PORT`.
    pub url: &'a str,
    /// PEM certificate (or CA) to trust for `https`.
    pub ca_cert: Option<&'a Path>,
    /// A file holding the bearer token (its first line); else [`TOKEN_ENV`], else none.
    pub token_file: Option<&'a Path>,
}

/// Adds `authorization: Bearer <token>` to every call when a token is given.
#[derive(Clone)]
pub struct Bearer(Option<MetadataValue<tonic::metadata::Ascii>>);

impl Interceptor for Bearer {
    fn call(
        &mut self,
        mut request: tonic::Request<()>,
    ) -> Result<tonic::Request<()>, tonic::Status> {
        if let Some(value) = &self.0 {
            request
                .metadata_mut()
                .insert("authorization", value.clone());
        }
        Ok(request)
    }
}

pub type Client = RefereeClient<InterceptedService<Channel, Bearer>>;

/// Connects to the server; errors are sentences for the operator.
pub async fn connect(remote: &Remote<'_>) -> Result<Client, String> {
    let token = token(remote.token_file)?;
    let bearer = token
        .map(|t| {
            MetadataValue::try_from(format!("Bearer {t}"))
                .map_err(|_| "the token holds characters a header cannot carry".to_string())
        })
        .transpose()?;
    let mut endpoint = Endpoint::from_shared(remote.url.to_string())
        .map_err(|e| format!("--server {:?}: {e}", remote.url))?;
    match (remote.url.starts_with("https://"), remote.ca_cert) {
        (true, Some(path)) => {
            let pem = std::fs::read(path)
                .map_err(|e| format!("cannot read --ca-cert {}: {e}", path.display()))?;
            endpoint = endpoint
                .tls_config(ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem)))
                .map_err(|e| format!("--ca-cert {}: {e}", path.display()))?;
        }
        (true, None) => {
            return Err(
                "an https server needs --ca-cert FILE: the certificate (or its CA) to trust".into(),
            );
        }
        (false, Some(_)) => return Err("--ca-cert applies to an https:// server only".into()),
        (false, None) if !remote.url.starts_with("http://") => {
            return Err(format!(
                "--server {:?}: give http://HOST:PORT or https://HOST:PORT",
                remote.url
            ));
        }
        (false, None) => {}
    }
    let channel = endpoint.connect().await.map_err(|e| {
        format!(
            "cannot reach the server at {}: {}",
            remote.url,
            source_text(&e)
        )
    })?;
    Ok(RefereeClient::with_interceptor(channel, Bearer(bearer)))
}

/// The token: the file's first line, else the environment variable, else none.
fn token(file: Option<&Path>) -> Result<Option<String>, String> {
    let text = match file {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read --token-file {}: {e}", path.display()))?,
        None => std::env::var(TOKEN_ENV).unwrap_or_default(),
    };
    let token = text.lines().next().unwrap_or("").trim().to_string();
    if token.is_empty() && file.is_some() {
        return Err("the --token-file is empty".into());
    }
    Ok(Some(token).filter(|t| !t.is_empty()))
}

/// An error with its causes, which tonic keeps apart ("transport error" alone says little).
fn source_text(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

/// A status as the operator reads it: its code and message.
pub fn status_text(status: &tonic::Status) -> String {
    format!("{:?}: {}", status.code(), status.message())
}

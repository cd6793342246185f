//! `referee health`: asks a running server's standard health service
//! (`grpc.health.v1.Health/Check`) whether it serves; exit 0 only for SERVING. For container
//! health checks and scripts, which then need no grpc_health_probe.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use tonic::transport::{Certificate, Channel, ClientTlsConfig};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

/// How long a check may take in all: a probe that hangs is a failed probe.
const DEADLINE: Duration = Duration::from_secs(5);

/// What `health` was asked for.
pub struct Probe {
    /// host:port of the server.
    pub addr: String,
    /// Speak TLS, trusting this certificate (PEM; the server's own, if self-signed).
    pub tls_ca: Option<PathBuf>,
    /// The name the certificate must carry (default: the host of `addr`).
    pub tls_domain: Option<String>,
    /// The service asked about; "" is the server as a whole.
    pub service: String,
}

/// Exit 0 if the server answers SERVING, 1 otherwise (saying what it answered), 2 for a
/// certificate file that cannot be read.
pub fn run(probe: &Probe) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("referee: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let tls = match probe
        .tls_ca
        .as_ref()
        .map(std::fs::read_to_string)
        .transpose()
    {
        Ok(ca) => ca,
        Err(e) => {
            let path = probe.tls_ca.as_ref().map(|p| p.display().to_string());
            eprintln!("referee: {}: {e}", path.unwrap_or_default());
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(async { tokio::time::timeout(DEADLINE, check(probe, tls)).await }) {
        Ok(Ok(ServingStatus::Serving)) => {
            println!("SERVING");
            ExitCode::SUCCESS
        }
        Ok(Ok(status)) => {
            println!("{}", status.as_str_name());
            ExitCode::FAILURE
        }
        Ok(Err(e)) => {
            eprintln!("referee: health check of {}: {e}", probe.addr);
            ExitCode::FAILURE
        }
        Err(_) => {
            eprintln!(
                "referee: health check of {}: no answer within {} s",
                probe.addr,
                DEADLINE.as_secs()
            );
            ExitCode::FAILURE
        }
    }
}

async fn check(probe: &Probe, ca: Option<String>) -> Result<ServingStatus, String> {
    let scheme = if ca.is_some() { "https" } else { "http" };
    let mut endpoint = Channel::from_shared(format!("{scheme}://{}", probe.addr))
        .map_err(|e| format!("address \"{}\": {e}", probe.addr))?;
    if let Some(ca) = ca {
        let mut tls = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(ca));
        if let Some(domain) = &probe.tls_domain {
            tls = tls.domain_name(domain);
        }
        endpoint = endpoint.tls_config(tls).map_err(|e| e.to_string())?;
    }
    let channel = endpoint.connect().await.map_err(|e| format!("{e:?}"))?;
    let request = HealthCheckRequest {
        service: probe.service.clone(),
    };
    let answer = HealthClient::new(channel)
        .check(request)
        .await
        .map_err(|s| format!("{:?}: {}", s.code(), s.message()))?;
    Ok(answer.into_inner().status())
}

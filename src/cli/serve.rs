//! `referee serve`: the gRPC service over the embedded sled log in `--data`.

use std::net::SocketAddr;
use std::path::Path;
use std::process::ExitCode;

use crate::access::TokenStore;
use crate::log::SledLog;
use crate::service::{self, Service};

/// Binds first and says where, so scripts and tests started with port 0 can connect.
async fn serve(
    addr: SocketAddr,
    data: &Path,
    log: SledLog,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    println!("referee listening on {bound}");
    tracing::info!(addr = %bound, "referee listening");
    let tokens = TokenStore::new(data);
    if !tokens.enforced()? {
        tracing::warn!(
            "no token issued: access control is off (issue one with `referee token issue`)"
        );
    }
    // The signing key is made on first start, so bundles exported later verify against it.
    let key = crate::audit::load_or_create_key(data)?;
    let service = Service::with_tokens(log, tokens).with_audit_key(key);
    service::serve_on(listener, service, shutdown).await?;
    Ok(())
}

pub fn run(addr: SocketAddr, data: &Path) -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr)
        .init();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("referee: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let log = match SledLog::open(data) {
        Ok(log) => log,
        Err(e) => {
            eprintln!("referee: cannot open the log in {}: {e}", data.display());
            return ExitCode::FAILURE;
        }
    };
    tracing::info!(data = %data.display(), "log opened");
    let shutdown = async {
        stop_signal().await;
        tracing::info!("shutting down");
    };
    match runtime.block_on(serve(addr, data, log, shutdown)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("referee: {e}");
            ExitCode::FAILURE
        }
    }
}

/// SIGINT (Ctrl-C) or SIGTERM (systemd, containers): finish in-flight requests and stop.
async fn stop_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        }
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

//! `referee serve`: the gRPC service over the embedded sled log in `--data`, or over
//! PostgreSQL with `--store URL`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use tokio::signal::unix::{Signal, SignalKind, signal};

use crate::access::{SERVER_RECHECK, SharedTokens, TokenStore};
use crate::log::{Log, PgLog, SledLog};
use crate::service::{self, Limits, Service, Tls};

/// How to serve: where, over what, with which limits.
pub struct Options {
    pub addr: SocketAddr,
    pub data: PathBuf,
    /// The PostgreSQL connection string, when the log is kept there instead of in `data`.
    pub store: Option<String>,
    /// The certificate authority (PEM) the database's certificate is checked against.
    pub store_ca: Option<PathBuf>,
    pub tls_cert: Option<PathBuf>,
    pub tls_key: Option<PathBuf>,
    /// Serve without TLS on a non-loopback address (behind a TLS proxy, on a closed network).
    pub insecure: bool,
    pub limits: Limits,
    /// How long a watcher may leave its outbox full before its stream is ended.
    pub watcher_lag: Duration,
    /// What all watchers may hold together beyond their reserves, in bytes.
    pub watchers_memory: usize,
    /// How long requests in flight get after the stop signal.
    pub shutdown_grace: Duration,
    /// How many games' referees stay in memory, and for how long unused.
    pub cache: service::CacheLimits,
    /// Where the arbiter console is served (plain HTTP), if anywhere.
    pub console: Option<SocketAddr>,
    pub console_config: service::console::ConsoleConfig,
}

/// What is left of shutdown once the server has stopped (dropping the connections, closing
/// the log: sled's flush and the writer's last fsync) gets this long before the process exits
/// anyway, so a disk that stopped answering cannot hold the process for minutes (sled's flush
/// on close waits forever on a full disk).
const EXIT_MARGIN: Duration = Duration::from_secs(2);

/// Binds first and says where, so scripts and tests started with port 0 can connect.
async fn serve<L: Log>(
    options: &Options,
    tls: Option<Tls>,
    log: L,
    access: Access,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let listener = tokio::net::TcpListener::bind(options.addr).await?;
    let bound = listener.local_addr()?;
    let scheme = if tls.is_some() { "TLS" } else { "plain text" };
    // Scripts and tests read the address as the last word of this line.
    println!("referee listening on {bound}");
    tracing::info!(addr = %bound, scheme, "referee listening");
    let Access { tokens, key } = access;
    match tokens.access()? {
        crate::access::Access::Off => tracing::warn!(
            "no token issued: access control is off (issue one with `referee token issue`)"
        ),
        crate::access::Access::On(grants) if grants.is_empty() => tracing::error!(
            "access control is on but the token file holds no token: every call will be \
             refused. Issue one with `referee token issue`, or turn access control off \
             deliberately with `referee token off`"
        ),
        crate::access::Access::On(grants) => {
            tracing::info!(tokens = grants.len(), "access control is on")
        }
    }
    // Kept, so that the log is closed here, under the exit deadline, and not somewhere in
    // the server's teardown.
    let log_to_close = log.clone();
    let service = Service::with_tokens(log, tokens)
        .with_audit_key(key)
        .with_limits(options.limits)
        .with_watcher_lag(options.watcher_lag)
        .with_watchers_memory(options.watchers_memory)
        .with_shutdown_grace(options.shutdown_grace)
        .with_cache_limits(options.cache);
    if let Some(addr) = options.console {
        let console = tokio::net::TcpListener::bind(addr).await?;
        let bound = console.local_addr()?;
        // Tests read the console's address as the last word of this line.
        println!("referee console on http://{bound}/");
        tracing::info!(addr = %bound, "console listening");
        let (service, config) = (service.clone(), options.console_config);
        tokio::spawn(async move {
            if let Err(e) = service::console::serve_console(console, service, config).await {
                tracing::error!(error = %e, "the console stopped");
            }
        });
    }
    let served = service::serve_with(listener, service, tls, shutdown).await;
    exit_after(EXIT_MARGIN, "closing the log");
    drop(log_to_close);
    Ok(served?)
}

/// The certificate and key, or why the server must not start: bearer tokens and events
/// would cross a network in clear text.
fn tls_of(options: &Options) -> Result<Option<Tls>, String> {
    let read = |path: &Path| {
        std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    };
    match (&options.tls_cert, &options.tls_key) {
        (Some(cert), Some(key)) => Ok(Some(Tls {
            cert_pem: read(cert)?,
            key_pem: read(key)?,
        })),
        (None, None) if options.addr.ip().is_loopback() || options.insecure => Ok(None),
        (None, None) => Err(format!(
            "refusing to serve on {} without TLS: tokens and game events would cross the \
             network in clear text. Give --tls-cert FILE --tls-key FILE, or --insecure if a \
             TLS-terminating proxy or a closed network protects every link",
            options.addr
        )),
        _ => Err("--tls-cert and --tls-key go together: give both or neither".into()),
    }
}

/// The console speaks plain HTTP and carries tokens: loopback, or a proxy's word for it.
fn console_allowed(options: &Options) -> Result<(), String> {
    match options.console {
        Some(addr) if !addr.ip().is_loopback() && !options.insecure => Err(format!(
            "refusing to serve the console on {addr}: it is plain HTTP and carries tokens. \
             Serve it on a loopback address behind a TLS-terminating proxy and give --insecure"
        )),
        _ => Ok(()),
    }
}

pub fn run(options: &Options) -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr)
        .init();
    let l = options.limits;
    if l.max_streams_per_token == 0
        || l.burst_per_token == 0
        || l.rate_per_token.is_nan()
        || l.rate_per_token <= 0.0
    {
        eprintln!(
            "referee: --max-streams-per-token, --rate-per-token and --burst-per-token must be \
             positive (a token could do nothing at all)"
        );
        return ExitCode::from(2);
    }
    if options.cache.max_games == 0 {
        eprintln!("referee: --live-games must be positive (a game is in memory while used)");
        return ExitCode::from(2);
    }
    if options.watcher_lag.is_zero() {
        eprintln!("referee: --watcher-lag-ms must be positive (every watcher would be cut)");
        return ExitCode::from(2);
    }
    if let Err(e) = console_allowed(options) {
        eprintln!("referee: {e}");
        return ExitCode::from(2);
    }
    let tls = match tls_of(options) {
        Ok(tls) => tls,
        Err(e) => {
            eprintln!("referee: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("referee: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let data = &options.data;
    let grace = options.shutdown_grace;
    let shutdown = async move {
        let mut signals = StopSignals::new();
        signals.next().await;
        tracing::info!(
            grace_ms = super::millis(grace),
            "shutting down (a second SIGTERM or SIGINT exits at once)"
        );
        exit_after(grace + EXIT_MARGIN, "shutting down");
        tokio::spawn(async move {
            signals.next().await;
            eprintln!("referee: second stop signal: exiting now");
            std::process::exit(1);
        });
    };
    let served = match &options.store {
        None => {
            let log = match SledLog::open(data) {
                Ok(log) => log,
                Err(e) => {
                    eprintln!("referee: cannot open the log in {}: {e}", data.display());
                    return ExitCode::FAILURE;
                }
            };
            tracing::info!(data = %data.display(), "log opened");
            runtime.block_on(super::store::report(&log));
            // The signing key is made on first start, so bundles exported later verify
            // against it.
            let access = match crate::audit::load_or_create_key(data) {
                Ok(key) => Access {
                    tokens: Arc::new(TokenStore::new(data).rechecked_every(SERVER_RECHECK)),
                    key,
                },
                Err(e) => {
                    eprintln!("referee: {e}");
                    return ExitCode::FAILURE;
                }
            };
            runtime.block_on(serve(options, tls, log, access, shutdown))
        }
        Some(url) => {
            let ca = options.store_ca.as_deref();
            let log = match runtime.block_on(open_postgres(url, ca, data)) {
                Ok(log) => log,
                Err((code, e)) => {
                    eprintln!("referee: {e}");
                    return ExitCode::from(code);
                }
            };
            // Tokens and the signing key are the same on every instance of this database:
            // taken from it (and given to it) before the first call is served.
            let access = match runtime.block_on(shared_access(&log, data)) {
                Ok((access, sharing)) => {
                    runtime.spawn(sharing.run());
                    access
                }
                Err(e) => {
                    eprintln!("referee: {e}");
                    return ExitCode::FAILURE;
                }
            };
            runtime.block_on(serve(options, tls, log, access, shutdown))
        }
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("referee: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The pool size `serve --store` opens: the log's default.
fn referee_connections() -> usize {
    crate::log::PG_CONNECTIONS
}

/// Who may call, and the key audit bundles are signed with.
struct Access {
    tokens: Arc<TokenStore>,
    key: ed25519_dalek::SigningKey,
}

/// The tokens and signing key of a server on PostgreSQL: this data directory's and the
/// database's, merged (tokens) or agreed (the key first given to the database), and the
/// task that goes on sharing token lines while the server runs.
async fn shared_access(log: &PgLog, data: &Path) -> Result<(Access, SharedTokens), String> {
    let tokens = Arc::new(TokenStore::new(data).rechecked_every(SERVER_RECHECK));
    let sharing = SharedTokens::new(log.clone(), Arc::clone(&tokens));
    let (given, taken) = sharing
        .exchange()
        .await
        .map_err(|e| format!("cannot share tokens through the database: {e}"))?;
    tracing::info!(
        given,
        taken,
        "token lines shared with the other instances of this database"
    );
    let key = crate::audit::shared_key(log, data)
        .await
        .map_err(|e| e.to_string())?;
    Ok((Access { tokens, key }, sharing))
}

/// How long `serve --store` waits for the database at start before giving up.
const CONNECT_LIMIT: Duration = Duration::from_secs(30);

/// Opens the log in PostgreSQL: the connection string checked first (exit 2 naming what is
/// wrong), then the database (exit 1 if it cannot be reached or does not commit durably).
/// `data` is created for the token file and the signing key, which stay on this machine.
async fn open_postgres(url: &str, ca: Option<&Path>, data: &Path) -> Result<PgLog, (u8, String)> {
    // tokio-postgres does not know verify-full; the log reads it (see PgLog::open_secured).
    let checked = url.replace("sslmode=verify-full", "sslmode=require");
    let config: tokio_postgres::Config = checked.parse().map_err(|e| {
        let expected = "a postgres:// URL or key=value pairs such as \
                        'host=db1 port=5432 user=referee dbname=referee'";
        (
            2,
            format!("--store: not a PostgreSQL connection string ({e}): {expected}"),
        )
    })?;
    let target = describe(&config);
    std::fs::create_dir_all(data)
        .map_err(|e| (1, format!("cannot create {}: {e}", data.display())))?;
    let open = PgLog::open_secured(url, ca, referee_connections());
    let opened = tokio::time::timeout(CONNECT_LIMIT, open)
        .await
        .map_err(|_| {
            (
                1,
                format!(
                    "--store: no answer from {target} within {} s",
                    CONNECT_LIMIT.as_secs()
                ),
            )
        })?;
    let log = opened.map_err(|e| {
        let text = e.to_string();
        let hint = if text.contains("certificate") || text.contains("TLS") {
            "; check sslmode in --store and the certificate authority given with --store-ca \
             (verify-full checks the database's certificate against it and its host name)"
        } else {
            ""
        };
        (1, format!("cannot open the log in {target}: {e}{hint}"))
    })?;
    let games = log.games().await.map(|g| g.len()).unwrap_or(0);
    tracing::info!(store = %target, games, "log opened in PostgreSQL");
    Ok(log)
}

/// Where a connection string points, without its password: `postgres://HOST:PORT,…/DB`.
pub(super) fn describe(config: &tokio_postgres::Config) -> String {
    let ports = config.get_ports();
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(i, host)| {
            let host = match host {
                tokio_postgres::config::Host::Tcp(name) => name.clone(),
                tokio_postgres::config::Host::Unix(path) => path.display().to_string(),
            };
            let port = ports.get(i).or(ports.first()).copied().unwrap_or(5432);
            format!("{host}:{port}")
        })
        .collect();
    format!(
        "postgres://{}/{}",
        hosts.join(","),
        config.get_dbname().or(config.get_user()).unwrap_or("")
    )
}

/// SIGINT (Ctrl-C) and SIGTERM (systemd, containers), listened to once for the whole run so
/// that a second signal is not missed between two listeners.
struct StopSignals {
    interrupt: Option<Signal>,
    terminate: Option<Signal>,
}

impl StopSignals {
    fn new() -> StopSignals {
        StopSignals {
            interrupt: signal(SignalKind::interrupt()).ok(),
            terminate: signal(SignalKind::terminate()).ok(),
        }
    }

    /// The next stop signal.
    async fn next(&mut self) {
        tokio::select! {
            _ = recv(&mut self.interrupt) => {}
            _ = recv(&mut self.terminate) => {}
        }
    }
}

/// The next signal, or never if it could not be listened to.
async fn recv(signal: &mut Option<Signal>) {
    match signal {
        Some(signal) => {
            signal.recv().await;
        }
        None => std::future::pending().await,
    }
}

/// Exits the process if `what` is not done within `deadline`, whatever is still running. A
/// plain thread, not a task: it must fire even if every runtime thread is stuck (in fsync on
/// a failing disk, say). Exiting is as safe as a kill: an event is acknowledged only once
/// durable.
fn exit_after(deadline: Duration, what: &'static str) {
    let watchdog = std::thread::Builder::new()
        .name("exit-watchdog".into())
        .spawn(move || {
            std::thread::sleep(deadline);
            eprintln!(
                "referee: still {what} after {} ms (a disk that does not answer?); exiting \
                 now. Every acknowledged event is durable; writes not yet answered were not \
                 acknowledged",
                super::millis(deadline)
            );
            std::process::exit(1);
        });
    if let Err(e) = watchdog {
        tracing::error!(error = %e, "cannot start the exit watchdog: shutdown is not bounded");
    }
}

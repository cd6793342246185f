//! Shared test helpers: an in-process server on 127.0.0.1:0 and a client for it.

pub mod components;
pub mod http;
pub mod pg_ha;
pub mod postgres;
pub mod process;
pub mod report;
pub mod webdriver;

use std::net::SocketAddr;
use std::path::Path;

use referee::log::{Durability, Log, PgLog, SledLog};
use referee::service::proto::referee_client::RefereeClient;
use referee::service::{Service, serve_on};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tonic::transport::Channel;

/// A running in-process gRPC server over a sled log in a directory (or another log).
pub struct TestServer<L: Log = SledLog> {
    pub addr: SocketAddr,
    pub log: L,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

/// A "sync" that does nothing, for tests that check rulings, not durability: the crash and
/// fault tests open their logs with the real fdatasync.
struct NoSync;

impl Durability for NoSync {
    fn sync_data(&mut self, _file: &std::fs::File) -> std::io::Result<()> {
        Ok(())
    }
}

/// The token store of `data` as `referee serve` reads it: looked at once a second at most.
fn server_tokens(data: &Path) -> referee::access::TokenStore {
    referee::access::TokenStore::new(data).rechecked_every(referee::access::SERVER_RECHECK)
}

impl TestServer {
    pub async fn start(data: &Path) -> TestServer {
        let log = SledLog::open(data).expect("open log");
        TestServer::run(Service::new(log.clone()), log).await
    }

    /// A server as [`TestServer::start`] whose log never calls fdatasync, for tests of the
    /// rules only. sled's flush still writes each group commit into its file, so a reopen
    /// after [`TestServer::stop`] finds every acknowledged event, but nothing is safe from a
    /// power cut.
    pub async fn start_unsynced(data: &Path) -> TestServer {
        let log = SledLog::open_with(data, Box::new(NoSync)).expect("open log");
        TestServer::run(Service::new(log.clone()), log).await
    }

    /// A server with access control by the tokens issued in `data`, signing audit exports
    /// with `data`'s key, as `referee serve` runs.
    pub async fn start_with_tokens(data: &Path) -> TestServer {
        let log = SledLog::open(data).expect("open log");
        let key = referee::audit::load_or_create_key(data).expect("audit key");
        let service = Service::with_tokens(log.clone(), server_tokens(data)).with_audit_key(key);
        TestServer::run(service, log).await
    }

    /// A server with tokens, as [`TestServer::start_with_tokens`], holding each token to
    /// `limits`.
    pub async fn start_with_limits(data: &Path, limits: referee::service::Limits) -> TestServer {
        let log = SledLog::open(data).expect("open log");
        let service = Service::with_tokens(log.clone(), server_tokens(data)).with_limits(limits);
        TestServer::run(service, log).await
    }
}

impl TestServer<PgLog> {
    /// A server over the log in the PostgreSQL database at `url`, without access control;
    /// several may serve one database.
    pub async fn start_postgres(url: &str) -> TestServer<PgLog> {
        let log = PgLog::open(url).await.expect("open the log in PostgreSQL");
        TestServer::run(Service::new(log.clone()), log).await
    }
}

impl<L: Log> TestServer<L> {
    async fn run(service: Service<L>, log: L) -> TestServer<L> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let shutdown = async {
                let _ = stopped.await;
            };
            serve_on(listener, service, shutdown).await.expect("serve");
        });
        TestServer {
            addr,
            log,
            stop: Some(stop),
            task: Some(task),
        }
    }

    pub async fn client(&self) -> RefereeClient<Channel> {
        RefereeClient::connect(format!("http://{}", self.addr))
            .await
            .expect("connect")
    }

    /// Stops the server and waits until it has let go of the log.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            // Clients still connected could hold graceful shutdown open: bound the wait.
            let stopped = tokio::time::timeout(std::time::Duration::from_secs(10), task).await;
            assert!(stopped.is_ok(), "the server did not shut down within 10 s");
        }
    }
}

/// A renju game's stones (side, point) up to black's double-three: f8 makes f8 g8 h8 and
/// f8 g9 h10, both live threes.
pub const RENJU_DOUBLE_THREE: [(&str, &str); 9] = [
    ("black", "h8"),
    ("white", "a15"),
    ("black", "g8"),
    ("white", "c15"),
    ("black", "g9"),
    ("white", "e15"),
    ("black", "h10"),
    ("white", "o1"),
    ("black", "f8"),
];

/// The repository root, for reading fixtures and data files.
pub fn repo_path(relative: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// The shared data set's `RELATIVE` path, as copied into the repository (`tests/data`,
/// attribution in `tests/data/README.md`); `None` only if the copy is missing.
pub fn shared_data(relative: &str) -> Option<std::path::PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(relative);
    path.exists().then_some(path)
}

/// An arbiter's `warn` word with `text`: an event any game accepts, of any size up to the
/// limit, that changes nothing in the game.
pub fn arbiter_warning(event_id: String, text: String) -> referee::service::proto::NewEvent {
    use referee::service::proto;
    let word = proto::ArbiterWord {
        decision: "warn".into(),
        text: Some(text),
        ..Default::default()
    };
    proto::NewEvent {
        event_id,
        event: Some(proto::Event {
            side: "arbiter".into(),
            ts_ms: None,
            kind: Some(proto::event::Kind::Arbiter(word)),
        }),
    }
}

/// Creates a xiangqi game `id` from the standard start.
pub async fn create_xiangqi(client: &mut RefereeClient<Channel>, id: &str) {
    create_game(client, "xiangqi", id).await;
}

/// Creates a game of `variant` with id `id` from the standard start.
pub async fn create_game(client: &mut RefereeClient<Channel>, variant: &str, id: &str) {
    use referee::service::proto;
    let header = proto::GameHeader {
        variant: variant.into(),
        id: id.into(),
        ..Default::default()
    };
    client
        .create_game(proto::CreateGameRequest {
            header: Some(header),
        })
        .await
        .expect("create");
}

/// Waits until no handle holds sled's lock on the store in `dir`: sled's background threads
/// can keep the file open a moment after the last handle is dropped, and an open right then
/// fails with "could not acquire lock".
pub fn released(dir: &Path) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let db = std::fs::File::open(dir.join("db")).expect("db file");
    while db.try_lock().is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "sled's lock on {dir:?} was never released"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Runs the `referee` binary built for these tests with `args`.
pub fn referee(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(args)
        .output()
        .expect("run referee")
}

/// Runs the `referee` binary with `args` as [`referee`] does, but kills it if it has not
/// exited within `limit` (a command expected to be refused that starts serving instead).
pub fn referee_within(args: &[&str], limit: std::time::Duration) -> std::process::Output {
    use std::process::Stdio;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run referee");
    let start = std::time::Instant::now();
    while child.try_wait().expect("try_wait").is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

/// `referee token issue --data DATA ARGS`, which must succeed: the secret it prints.
pub fn issue(data: &Path, args: &[&str]) -> String {
    let data = data.to_str().expect("utf-8");
    let out = referee(&[&["token", "issue", "--data", data], args].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("utf-8")
        .trim()
        .to_string()
}

//! Durable ingest over gRPC against the disk's own limit: `cargo bench --bench append
//! [-- SECONDS [STREAMSxEVENTS...]]`.
//!
//! First the disk's raw synced-write rate on the file system the store uses: 256-byte writes,
//! each followed by fdatasync, in a loop, both appended to a growing file and overwriting a
//! file already allocated (the faster is the anchor for the one-stream target). Then an
//! in-process server over a sled store in a temporary directory, and the boards in a SEPARATE
//! process: this binary re-executed as `append --client ADDR STREAMS EVENTS SECONDS`, a
//! tonic 0.14 `RefereeClient` on a single-threaded tokio runtime, one HTTP/2 connection and
//! one `Play` stream per board, each board waiting for its ack before sending the next
//! message, as a board does. Every ack means the events were fdatasync'ed and anchored.
//!
//! Prints per configuration: events/s, ack p50/p99, group commits, events per commit, and the
//! CPU time per event of the server and client processes (user + system, from
//! `/proc/PID/stat`, 10 ms ticks), then MET / NOT MET for each target of issue 17.
//!
//! `cargo bench --bench append -- postgres [SECONDS] [STREAMSxEVENTS...]` (issue 18 item 6;
//! with shapes, PostgreSQL alone at those, e.g. under a profiler): 1, 8 and 64 streams of
//! one event each, on sled and on PostgreSQL in the same run. The bench starts its own
//! PostgreSQL cluster (Debian's PostgreSQL, `initdb`/`pg_ctl` in a temporary directory on the
//! same file system as sled's store, loopback TCP, the settings `PgLog` requires: fsync on,
//! synchronous_commit on), a fresh database per configuration; it says so and stops when
//! PostgreSQL is not installed. Then the targets of issue 33 item 5, and where the round trips
//! go: 1 and 64 streams again for a second each with the server's statement log on
//! (`log_min_duration_statement = 0`, prefixed with the database), counting per acknowledged
//! append the transactions committed (`pg_stat_database.xact_commit`, read once the log's
//! connections closed) and the log's entries by kind.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use referee::log::{Log, PgLog, SledLog};
use referee::service::proto::{self, event::Kind, referee_client::RefereeClient};
use referee::service::{Service, serve_on};
use tokio_stream::StreamExt;

#[path = "../tests/common/postgres.rs"]
#[allow(dead_code)]
mod postgres;
// What the cluster does when PostgreSQL is not installed (postgres.rs calls it).
#[path = "../tests/common/components.rs"]
mod components;

/// Bytes per raw write: about one stored clock press.
const RAW_WRITE: usize = 256;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--client") {
        client(&args[1..]);
        return;
    }
    let seconds = args.iter().find_map(|a| a.parse().ok()).unwrap_or(5);
    let only: Vec<Shape> = args.iter().filter_map(|a| Shape::parse(a)).collect();
    if args.iter().any(|a| a == "postgres") && !only.is_empty() {
        // `append -- postgres 10 64x1`: PostgreSQL alone, e.g. under a profiler.
        postgres_only(&only, seconds);
    } else if args.iter().any(|a| a == "postgres") {
        beside_postgres(seconds);
    } else if only.is_empty() {
        server(seconds);
    } else {
        // `append 3 64x1`: just that configuration, e.g. under a profiler.
        let runtime = tokio::runtime::Runtime::new().expect("runtime");
        for shape in only {
            runtime.block_on(run(shape, seconds));
        }
    }
}

// ---- the disk's raw rate ----------------------------------------------------------------

/// Synced 256-byte writes per second into `dir` for about `seconds`: appended when `append`,
/// else overwriting bytes already allocated and synced (no file size to commit).
fn raw_rate(dir: &Path, append: bool, seconds: f64) -> f64 {
    use std::os::unix::fs::FileExt;
    let path = dir.join(if append {
        "raw-append"
    } else {
        "raw-overwrite"
    });
    let file = std::fs::File::create(&path).expect("raw file");
    let slots = 1 << 14;
    if !append {
        file.write_all_at(&vec![0; RAW_WRITE * slots], 0)
            .expect("allocate");
        file.sync_all().expect("sync");
    }
    let block = [b'x'; RAW_WRITE];
    let start = Instant::now();
    let mut writes = 0;
    while start.elapsed().as_secs_f64() < seconds {
        let slot = if append { writes } else { writes % slots };
        file.write_all_at(&block, (slot * RAW_WRITE) as u64)
            .expect("write");
        file.sync_data().expect("fdatasync");
        writes += 1;
    }
    let rate = writes as f64 / start.elapsed().as_secs_f64();
    std::fs::remove_file(&path).expect("remove");
    rate
}

// ---- the server side ---------------------------------------------------------------------

/// One configuration: board streams and events per append.
#[derive(Clone, Copy)]
struct Shape {
    streams: usize,
    events: usize,
}

impl Shape {
    /// `STREAMSxEVENTS`, e.g. `64x8`.
    fn parse(text: &str) -> Option<Shape> {
        let (streams, events) = text.split_once('x')?;
        Some(Shape {
            streams: streams.parse().ok()?,
            events: events.parse().ok()?,
        })
    }
}

/// What one configuration measured.
struct Measured {
    events: f64,
    events_per_s: f64,
    p99_ms: f64,
}

fn server(seconds: u64) {
    let scratch = tempfile::tempdir().expect("tempdir");
    let append = raw_rate(scratch.path(), true, 2.0);
    let overwrite = raw_rate(scratch.path(), false, 2.0);
    let raw = append.max(overwrite);
    println!(
        "disk, same file system: {append:.0} synced 256-byte appends/s, {overwrite:.0} synced \
         256-byte overwrites/s (raw rate: {raw:.0}/s)"
    );
    println!(
        "client: this binary re-executed with --client (tonic 0.14 RefereeClient, one \
         single-threaded tokio runtime, a connection and Play stream per board)"
    );
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let one = runtime.block_on(run(
        Shape {
            streams: 1,
            events: 1,
        },
        seconds,
    ));
    let many = runtime.block_on(run(
        Shape {
            streams: 64,
            events: 1,
        },
        seconds,
    ));
    let batched = runtime.block_on(run(
        Shape {
            streams: 64,
            events: 8,
        },
        seconds,
    ));
    println!("targets (issue 17 item 2):");
    verdict(
        &format!(
            "1 stream >= 60% of the raw rate ({:.0}/s): {:.0}/s = {:.0}%",
            0.6 * raw,
            one.events_per_s,
            100.0 * one.events_per_s / raw
        ),
        one.events_per_s >= 0.6 * raw,
    );
    verdict(
        &format!(
            "64 streams x 1 event >= 50,000 events/s: {:.0}/s",
            many.events_per_s
        ),
        many.events_per_s >= 50_000.0,
    );
    verdict(
        &format!(
            "64 streams x 1 event ack p99 < 10 ms: {:.2} ms",
            many.p99_ms
        ),
        many.p99_ms < 10.0,
    );
    verdict(
        &format!(
            "64 streams x 8 events >= 150,000 events/s: {:.0}/s",
            batched.events_per_s
        ),
        batched.events_per_s >= 150_000.0,
    );
}

fn verdict(what: &str, met: bool) {
    let word = if met { "MET" } else { "NOT MET" };
    println!("  {word:>7}  {what}");
}

/// One configuration on a fresh sled store.
async fn run(shape: Shape, seconds: u64) -> Measured {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = SledLog::open(dir.path()).expect("open");
    let syncs = || Some(log.stats().syncs);
    let measured = measure(log.clone(), shape, seconds, syncs).await;
    if shape.streams == 1 {
        time_export(&log, dir.path()).await;
    }
    measured
}

/// sled and PostgreSQL side by side at 1, 8 and 64 streams of one event per append.
fn beside_postgres(seconds: u64) {
    let Some(cluster) = postgres::Cluster::start("bench append -- postgres") else {
        return;
    };
    let version = cluster.psql("postgres", "SHOW server_version");
    let settings = cluster.psql(
        "postgres",
        "SELECT string_agg(name || '=' || setting, ' ' ORDER BY name) FROM pg_settings WHERE \
         name IN ('fsync', 'synchronous_commit', 'full_page_writes', 'wal_sync_method', \
         'commit_delay')",
    );
    println!(
        "PostgreSQL {version} started by the bench in a temporary directory (same file system \
         as sled's store), loopback TCP; {settings}; server CPU below is the referee process \
         only, PostgreSQL's own processes are not counted"
    );
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let mut rows = Vec::new();
    let mut pg_at = Vec::new();
    for (n, streams) in [1, 8, 64].into_iter().enumerate() {
        let shape = Shape { streams, events: 1 };
        println!("sled:");
        let sled = runtime.block_on(run(shape, seconds));
        let database = format!("bench{n}");
        cluster.psql("postgres", &format!("CREATE DATABASE {database}"));
        let url = cluster.url_of(&database);
        println!("PostgreSQL:");
        let pg = runtime.block_on(async {
            let log = PgLog::open(&url).await.expect("open the log in PostgreSQL");
            measure(log, shape, seconds, || None).await
        });
        pg_at.push((streams, pg.events_per_s, pg.p99_ms));
        rows.push((streams, sled, pg));
    }
    println!(
        "| streams x events | sled events/s | sled ack p99 | PostgreSQL events/s | PostgreSQL ack p99 | PostgreSQL / sled |"
    );
    println!("|---|---|---|---|---|---|");
    for (streams, sled, pg) in rows {
        println!(
            "| {streams} x 1 | {:.0} | {:.2} ms | {:.0} | {:.2} ms | {:.2}x |",
            sled.events_per_s,
            sled.p99_ms,
            pg.events_per_s,
            pg.p99_ms,
            pg.events_per_s / sled.events_per_s
        );
    }
    let at = |streams| {
        pg_at
            .iter()
            .find(|(s, _, _)| *s == streams)
            .map(|&(_, rate, p99)| (rate, p99))
            .expect("measured")
    };
    let ((one, _), (many, many_p99)) = (at(1), at(64));
    println!("targets (issue 33 item 5), PostgreSQL:");
    verdict(
        &format!("64 streams >= 15,000 events/s: {many:.0}/s"),
        many >= 15_000.0,
    );
    verdict(
        &format!("64 streams ack p99 < 20 ms: {many_p99:.2} ms"),
        many_p99 < 20.0,
    );
    verdict(
        &format!("1 stream >= 2,000 acks/s: {one:.0}/s"),
        one >= 2_000.0,
    );
    count_statements(&cluster, &runtime);
}

/// 1 and 64 streams for a second each with every statement logged: transactions and log
/// entries per acknowledged append. Not timed (the log slows the server).
fn count_statements(cluster: &postgres::Cluster, runtime: &tokio::runtime::Runtime) {
    println!("round trips, from the server's statement log (log_min_duration_statement = 0):");
    let set = |sql: &str| {
        cluster.psql("postgres", sql);
        cluster.psql("postgres", "SELECT pg_reload_conf()");
    };
    set("ALTER SYSTEM SET log_line_prefix = '%d '");
    set("ALTER SYSTEM SET log_min_duration_statement = 0");
    for streams in [1, 64] {
        let database = format!("count{streams}");
        cluster.psql("postgres", &format!("CREATE DATABASE {database}"));
        let url = cluster.url_of(&database);
        let measured = runtime.block_on(async {
            let log = PgLog::open(&url).await.expect("open the log in PostgreSQL");
            measure(log, Shape { streams, events: 1 }, 1, || None).await
        });
        // The log's connections have closed, so each backend has reported its transactions.
        std::thread::sleep(Duration::from_millis(500));
        let commits: f64 = cluster
            .psql(
                "postgres",
                &format!("SELECT xact_commit FROM pg_stat_database WHERE datname = '{database}'"),
            )
            .parse()
            .expect("xact_commit");
        let log = cluster.server_log();
        let mine = format!("{database} LOG:  duration: ");
        let mut kinds: Vec<(String, u64)> = Vec::new();
        for line in log.lines().filter_map(|l| l.strip_prefix(mine.as_str())) {
            // "0.123 ms  execute <unnamed>: ..." or "0.045 ms  statement: BEGIN"
            let rest = line.split_once(" ms  ").map_or(line, |(_, rest)| rest);
            let kind = rest.split([':', ' ']).next().unwrap_or("?");
            let kind = if kind == "statement" {
                format!("statement {}", rest.split(": ").nth(1).unwrap_or("?"))
            } else {
                kind.to_owned()
            };
            match kinds.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, n)) => *n += 1,
                None => kinds.push((kind, 1)),
            }
        }
        let appends = measured.events;
        let per = |n: f64| n / appends.max(1.0);
        let entries: Vec<String> = kinds
            .iter()
            .map(|(kind, n)| format!("{kind} {:.2}", per(*n as f64)))
            .collect();
        println!(
            "  {streams} stream(s): {appends} appends acknowledged; per append: {:.3} \
             transactions committed (all of the database's, creates and reads included), log \
             entries: {}",
            per(commits),
            entries.join(", ")
        );
    }
    set("ALTER SYSTEM RESET log_min_duration_statement");
}

/// PostgreSQL alone, at each of `shapes`, on a cluster of its own.
fn postgres_only(shapes: &[Shape], seconds: u64) {
    let Some(cluster) = postgres::Cluster::start("bench append -- postgres SHAPE") else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    for (n, &shape) in shapes.iter().enumerate() {
        let database = format!("only{n}");
        cluster.psql("postgres", &format!("CREATE DATABASE {database}"));
        let url = cluster.url_of(&database);
        runtime.block_on(async {
            let log = PgLog::open(&url).await.expect("open the log in PostgreSQL");
            measure(log, shape, seconds, || None).await
        });
    }
}

/// Serves `log` in process, runs the client process's boards against it for `seconds`, and
/// prints what it measured; `syncs` counts the log's group commits where it knows them.
async fn measure<L: Log>(
    log: L,
    shape: Shape,
    seconds: u64,
    syncs: impl Fn() -> Option<u64>,
) -> Measured {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = format!("http://{}", listener.local_addr().expect("addr"));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve_on(listener, Service::new(log.clone()), async {
        let _ = stopped.await;
    }));
    let mut child = spawn_client(&addr, shape, seconds);
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    // The client says when its boards are connected and their games created; the measured
    // window starts there, for both processes.
    let ready = next_line(&mut lines);
    assert_eq!(ready, "ready", "client: {ready}");
    let (server_cpu, client_cpu) = (cpu_ticks("self"), cpu_ticks(&child.id().to_string()));
    let before = syncs();
    child
        .stdin
        .as_mut()
        .expect("stdin")
        .write_all(b"go\n")
        .expect("go");
    // Blocking reads are fine here: the server runs on the runtime's worker threads.
    let report = next_line(&mut lines);
    let server_cpu = cpu_ticks("self") - server_cpu;
    let client_cpu = cpu_ticks(&child.id().to_string()) - client_cpu;
    let after = syncs();
    drop(child.stdin.take());
    assert!(child.wait().expect("client").success(), "client failed");
    let _ = stop.send(());
    let _ = server.await;
    let commits = before.zip(after).map(|(before, after)| after - before);
    print_run(shape, &report, commits, server_cpu, client_cpu)
}

fn spawn_client(addr: &str, shape: Shape, seconds: u64) -> Child {
    Command::new(std::env::current_exe().expect("own path"))
        .args(["--client", addr])
        .arg(shape.streams.to_string())
        .arg(shape.events.to_string())
        .arg(seconds.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn the client process")
}

fn next_line(lines: &mut impl Iterator<Item = std::io::Result<String>>) -> String {
    lines.next().expect("client ended early").expect("read")
}

/// User + system CPU ticks (10 ms) of a process so far, from `/proc/PID/stat`.
fn cpu_ticks(pid: &str) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
    // Fields after the command name, which ends at the last ')': state is field 3, utime 14,
    // stime 15.
    let rest = &stat[stat.rfind(')').expect("comm") + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime")
}

/// Prints one configuration's line from the client's report `EVENTS SECS P50_US P99_US`.
fn print_run(shape: Shape, report: &str, syncs: Option<u64>, server: u64, client: u64) -> Measured {
    let nums: Vec<f64> = report
        .split_whitespace()
        .map(|n| n.parse().expect("number"))
        .collect();
    let [events, secs, p50, p99] = nums[..] else {
        panic!("client report {report:?}")
    };
    let per_event = |ticks: u64| ticks as f64 * 10_000.0 / events.max(1.0);
    let measured = Measured {
        events,
        events_per_s: events / secs,
        p99_ms: p99 / 1e3,
    };
    let commits = syncs.map_or("commits counted by the database".into(), |syncs| {
        format!(
            "{syncs} group commits ({:.1} events each)",
            events / syncs.max(1) as f64
        )
    });
    println!(
        "{:>2} streams x {} event(s): {events} durable events in {secs:.2} s = {:.0} events/s; \
         ack p50 {:.2} ms, p99 {:.2} ms; {commits}; CPU per event: server {:.1} us, client \
         {:.1} us",
        shape.streams,
        shape.events,
        measured.events_per_s,
        p50 / 1e3,
        measured.p99_ms,
        per_event(server),
        per_event(client),
    );
    measured
}

/// Export and sign the bundle of the one game: the cost of audit signing, off the append path.
async fn time_export(log: &SledLog, data: &Path) {
    let key = referee::audit::load_or_create_key(data).expect("key");
    let start = Instant::now();
    let bundle = referee::audit::export(log, "b0", &key, 0)
        .await
        .expect("export");
    let secs = start.elapsed().as_secs_f64();
    println!(
        "   export + Ed25519 signature of game b0 ({} lines, {} bytes): {:.1} ms",
        bundle.lines().count(),
        bundle.len(),
        secs * 1e3
    );
}

// ---- the client process ------------------------------------------------------------------

fn client(args: &[String]) {
    let [addr, streams, events, seconds] = args else {
        panic!("usage: append --client ADDR STREAMS EVENTS SECONDS")
    };
    let shape = Shape {
        streams: streams.parse().expect("streams"),
        events: events.parse().expect("events"),
    };
    let seconds: u64 = seconds.parse().expect("seconds");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(boards(addr.clone(), shape, Duration::from_secs(seconds)));
}

async fn boards(addr: String, shape: Shape, length: Duration) {
    let mut connected = Vec::new();
    for i in 0..shape.streams {
        connected.push(Board::connect(&addr, format!("b{i}")).await);
    }
    println!("ready");
    let mut go = String::new();
    std::io::stdin().read_line(&mut go).expect("go");
    let until = Instant::now() + length;
    let start = Instant::now();
    let tasks: Vec<_> = connected
        .into_iter()
        .map(|b| tokio::spawn(b.play(shape.events, until)))
        .collect();
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await.expect("board"));
    }
    let secs = start.elapsed().as_secs_f64();
    all.sort();
    let events = all.len() * shape.events;
    let us = |per_mille: usize| all[(all.len() - 1) * per_mille / 1000].as_secs_f64() * 1e6;
    println!("{events} {secs} {} {}", us(500), us(990));
    // Stay alive until the server side has read this process's CPU time.
    let mut rest = String::new();
    let _ = std::io::stdin().read_line(&mut rest);
}

/// One board: its connection, its game, and its open `Play` stream.
struct Board {
    game: String,
    tx: tokio::sync::mpsc::Sender<proto::PlayRequest>,
    acks: tonic::Streaming<proto::PlayResponse>,
}

impl Board {
    async fn connect(addr: &str, game: String) -> Board {
        let mut client = RefereeClient::connect(addr.to_owned())
            .await
            .expect("connect");
        let header = proto::GameHeader {
            variant: "xiangqi".into(),
            id: game.clone(),
            ..Default::default()
        };
        let create = proto::CreateGameRequest {
            header: Some(header),
        };
        client.create_game(create).await.expect("create");
        let (tx, rx) = tokio::sync::mpsc::channel(1);
        let stream = tokio_stream::wrappers::ReceiverStream::new(rx);
        let acks = client.play(stream).await.expect("play").into_inner();
        Board { game, tx, acks }
    }

    /// Sends `events` clock presses per message until `until`; each ack's latency.
    async fn play(mut self, events: usize, until: Instant) -> Vec<Duration> {
        let mut latencies = Vec::new();
        let mut seq = 1;
        while Instant::now() < until {
            let sent = Instant::now();
            let message = proto::PlayRequest {
                game: self.game.clone(),
                expected_seq: seq,
                events: (seq..seq + events as u64).map(press).collect(),
            };
            self.tx.send(message).await.expect("send");
            let reply = self.acks.next().await.expect("reply").expect("ok");
            assert!(
                matches!(reply.outcome, Some(proto::play_response::Outcome::Ack(_))),
                "{reply:?}"
            );
            latencies.push(sent.elapsed());
            seq += events as u64;
        }
        latencies
    }
}

fn press(seq: u64) -> proto::NewEvent {
    let side = if seq % 2 == 1 { "red" } else { "black" };
    let event = proto::Event {
        side: side.into(),
        ts_ms: Some(seq * 1000),
        kind: Some(Kind::Clock(proto::ClockPress {
            first_ms: Some(seq),
            second_ms: Some(seq),
        })),
    };
    proto::NewEvent {
        event_id: format!("e{seq}"),
        event: Some(event),
    }
}

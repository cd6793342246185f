//! The database's own guarantee under failover, before our Log relies on it: with
//! pg_auto_failover's synchronous standby, every insert whose COMMIT returned survives a kill -9
//! of the primary's whole node, exactly once, on the promoted standby.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, NoTls};

use crate::common::pg_ha::Formation;

/// Concurrent writers, each on its own connection.
const WRITERS: i32 = 4;
/// Load before the kill and after the new primary is reported: long enough for thousands of
/// inserts and for every writer to reconnect, short enough for CI.
const LOAD_BEFORE: Duration = Duration::from_secs(2);
const LOAD_AFTER: Duration = Duration::from_secs(2);
/// A statement that has not answered by then counts as a lost connection (its row in doubt).
const STATEMENT_LIMIT: Duration = Duration::from_secs(5);

/// What one writer did: the rows whose COMMIT returned, and when writing resumed after the kill.
#[derive(Default)]
struct Written {
    acknowledged: Vec<i64>,
    resumed: Option<Instant>,
    reconnects: u32,
}

#[test]
fn failover_loses_no_acknowledged_insert() {
    let test = "failover_loses_no_acknowledged_insert";
    let Some(mut formation) = Formation::start(test) else {
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let url = formation.url();
    rt.block_on(create_table(&url));
    let stop = Arc::new(AtomicBool::new(false));
    let killed = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| rt.spawn(write_until(url.clone(), w, stop.clone(), killed.clone())))
        .collect();

    std::thread::sleep(LOAD_BEFORE);
    let kill = Instant::now();
    formation.kill_primary();
    killed.store(true, Ordering::SeqCst);
    let failover = formation.wait_for_new_primary(Duration::from_secs(40));
    std::thread::sleep(LOAD_AFTER);
    stop.store(true, Ordering::SeqCst);
    let written: Vec<Written> = rt.block_on(async {
        let mut all = Vec::new();
        for w in writers {
            all.push(w.await.expect("writer"));
        }
        all
    });
    let present = rt.block_on(rows_present(&url));
    report(&written, &present, kill, failover);
}

/// Counts what each writer had acknowledged against the rows on the new primary; fails on
/// any acknowledged row missing or present twice.
fn report(
    written: &[Written],
    present: &HashMap<(i32, i64), i64>,
    kill: Instant,
    failover: Duration,
) {
    let mut lost = Vec::new();
    let mut acknowledged = 0;
    for (w, writer) in (0..WRITERS).zip(written) {
        acknowledged += writer.acknowledged.len();
        lost.extend(
            writer
                .acknowledged
                .iter()
                .filter(|n| !present.contains_key(&(w, **n)))
                .map(|n| (w, *n)),
        );
    }
    let duplicated: Vec<_> = present.iter().filter(|(_, count)| **count > 1).collect();
    let rows: i64 = present.values().sum();
    let in_doubt = present.len() - (acknowledged - lost.len());
    // Every writer must have written through a new connection after the kill.
    let resumed = written
        .iter()
        .map(|w| w.resumed)
        .collect::<Option<Vec<_>>>();
    let resumed = resumed
        .and_then(|at| at.into_iter().max())
        .map(|at| at - kill);
    let reconnects: u32 = written.iter().map(|w| w.reconnects).sum();
    eprintln!(
        "pg_failover: acknowledged {acknowledged}, present {rows} ({in_doubt} unacknowledged \
         in-flight commits among them), lost {}, duplicated {}; new primary reported {:.1} s \
         after the kill, every writer writing again after {:.1} s, {reconnects} reconnections",
        lost.len(),
        duplicated.len(),
        failover.as_secs_f64(),
        resumed.map_or(f64::NAN, |d| d.as_secs_f64()),
    );
    assert!(
        lost.is_empty(),
        "acknowledged rows lost: {:?}",
        &lost[..lost.len().min(20)]
    );
    assert!(duplicated.is_empty(), "rows present twice: {duplicated:?}");
    assert!(
        resumed.is_some(),
        "a writer did not write again after the failover"
    );
}

/// No unique key on purpose: a row the database duplicated would show up as a count of 2.
async fn create_table(url: &str) {
    let client = connect(url).await.expect("connect to the primary");
    client
        .batch_execute("CREATE TABLE acked (writer int NOT NULL, n bigint NOT NULL)")
        .await
        .expect("create table");
}

/// Inserts `(writer, 1)`, `(writer, 2)`, ... until `stop`, one autocommit statement at a
/// time, reconnecting through the multi-host URL when the connection fails. A row whose
/// statement failed is in doubt and never retried: only rows whose COMMIT returned count.
async fn write_until(
    url: String,
    writer: i32,
    stop: Arc<AtomicBool>,
    killed: Arc<AtomicBool>,
) -> Written {
    let mut written = Written::default();
    let mut n: i64 = 0;
    while !stop.load(Ordering::SeqCst) {
        let Some(client) = connect(&url).await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        written.reconnects += 1;
        // A connection opened after the kill reached the new primary.
        let after_kill = killed.load(Ordering::SeqCst);
        while !stop.load(Ordering::SeqCst) {
            n += 1;
            let params: [&(dyn tokio_postgres::types::ToSql + Sync); 2] = [&writer, &n];
            let insert = client.execute("INSERT INTO acked (writer, n) VALUES ($1, $2)", &params);
            match tokio::time::timeout(STATEMENT_LIMIT, insert).await {
                Ok(Ok(_)) => written.acknowledge(n, after_kill),
                Ok(Err(e)) if is_disconnection(&e) => break,
                Ok(Err(e)) => panic!("writer {writer}, row {n}: {e}"),
                Err(_) => break,
            }
        }
    }
    // The first connection is not a reconnection.
    written.reconnects = written.reconnects.saturating_sub(1);
    written
}

impl Written {
    fn acknowledge(&mut self, n: i64, on_new_primary: bool) {
        self.acknowledged.push(n);
        if on_new_primary && self.resumed.is_none() {
            self.resumed = Some(Instant::now());
        }
    }
}

/// The server went away or is no longer writable (a demoted or shutting-down primary), as
/// opposed to a mistake in the statement.
fn is_disconnection(e: &tokio_postgres::Error) -> bool {
    let Some(code) = e.code() else { return true };
    let class = &code.code()[..2];
    class == "08" || class == "57" || *code == SqlState::READ_ONLY_SQL_TRANSACTION
}

async fn connect(url: &str) -> Option<Client> {
    let (client, connection) = tokio_postgres::connect(url, NoTls).await.ok()?;
    tokio::spawn(connection);
    Some(client)
}

/// How many times each `(writer, n)` is present, read on the new primary.
async fn rows_present(url: &str) -> HashMap<(i32, i64), i64> {
    let client = connect(url).await.expect("connect to the new primary");
    let rows = client
        .query(
            "SELECT writer, n, count(*) FROM acked GROUP BY writer, n",
            &[],
        )
        .await
        .expect("read the rows");
    rows.iter()
        .map(|r| ((r.get(0), r.get(1)), r.get(2)))
        .collect()
}

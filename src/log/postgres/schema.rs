//! The tables, created at open if absent, and their version.
//!
//! Plain SQL that CockroachDB and YugabyteDB also speak: tables, a sequence, primary keys,
//! UNIQUE constraints, `ON CONFLICT DO NOTHING`; no triggers, functions or advisory locks.
//!
//! - `referee_games`: one row per game; `number` (from a sequence) is its creation order.
//! - `referee_records`: every record, the header at seq 0. The primary key (game, seq) is what
//!   makes two appenders racing for one seq fail (the second waits for the first's commit,
//!   then gets SQLSTATE 23505); UNIQUE (game, event_id) is exactly-once by event id, forever.
//!   The header's event id is empty, which no event's can be.
//! - `referee_heads`: each game's last seq and its record's hash, moved in the transaction
//!   that inserts the records, so damage to the last record is caught as with sled.
//! - `referee_leases`: which instance writes each game, and the epoch of its claim (see
//!   `lease`). A row, not an advisory lock: a lock belongs to a session and is gone after a
//!   failover, a row is replicated with the log it guards.

use tokio_postgres::Client;
use tokio_postgres::error::SqlState;

use super::{Error, failed};

/// The schema this code writes and reads. A database at a higher version was written by a
/// newer referee and is refused rather than misread.
pub(super) const VERSION: i32 = 1;

const TABLES: &str = "
CREATE TABLE IF NOT EXISTS referee_schema (
    one BOOL PRIMARY KEY DEFAULT true CHECK (one),
    version INT NOT NULL
);
CREATE SEQUENCE IF NOT EXISTS referee_game_number;
CREATE TABLE IF NOT EXISTS referee_games (
    game TEXT PRIMARY KEY,
    number BIGINT NOT NULL UNIQUE DEFAULT nextval('referee_game_number'),
    created_ms BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS referee_records (
    game TEXT NOT NULL REFERENCES referee_games (game),
    seq BIGINT NOT NULL CHECK (seq >= 0),
    event_id TEXT NOT NULL,
    received_ms BIGINT NOT NULL,
    writer TEXT NOT NULL,
    body TEXT NOT NULL,
    prev_hash BYTEA NOT NULL,
    hash BYTEA NOT NULL,
    PRIMARY KEY (game, seq),
    UNIQUE (game, event_id)
);
CREATE TABLE IF NOT EXISTS referee_leases (
    game TEXT PRIMARY KEY REFERENCES referee_games (game),
    holder TEXT NOT NULL,
    epoch BIGINT NOT NULL CHECK (epoch > 0),
    taken_ms BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS referee_heads (
    game TEXT PRIMARY KEY REFERENCES referee_games (game),
    last_seq BIGINT NOT NULL,
    head_hash BYTEA NOT NULL
);
";

/// Creates the tables if absent and checks the stored version.
pub(super) async fn create(client: &mut Client) -> Result<(), Error> {
    // Two instances opening a fresh database at once can both try to create a table; the
    // loser's CREATE ... IF NOT EXISTS fails on PostgreSQL's catalog with 23505 or 42P07.
    // Once the winner committed, a second try finds everything there.
    let mut tries = 0;
    loop {
        match create_once(client).await {
            Ok(()) => break,
            Err(e) if racing(&e) && tries < 2 => tries += 1,
            Err(e) => return Err(failed("creating the schema", e)),
        }
    }
    check_version(client).await
}

async fn create_once(client: &mut Client) -> Result<(), tokio_postgres::Error> {
    let transaction = client.transaction().await?;
    transaction.batch_execute(TABLES).await?;
    transaction
        .execute(
            "INSERT INTO referee_schema (version) VALUES ($1) ON CONFLICT DO NOTHING",
            &[&VERSION],
        )
        .await?;
    transaction.commit().await
}

fn racing(e: &tokio_postgres::Error) -> bool {
    matches!(
        e.code(),
        Some(code) if *code == SqlState::UNIQUE_VIOLATION || *code == SqlState::DUPLICATE_TABLE
    )
}

async fn check_version(client: &Client) -> Result<(), Error> {
    let row = client
        .query_one("SELECT version FROM referee_schema", &[])
        .await
        .map_err(|e| failed("reading the schema version", e))?;
    let stored: i32 = row.get(0);
    if stored > VERSION {
        return Err(Error::Storage(format!(
            "postgres: the database's referee schema is version {stored}, newer than this \
             referee's {VERSION}: run a newer referee"
        )));
    }
    Ok(())
}
